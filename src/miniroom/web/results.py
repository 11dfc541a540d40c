"""What the model reads from `fetch` and `search`: the page (or its first part and the file holding all of
it), the numbered findings, and which services failed and why. Pure, but for writing the saved page."""

from __future__ import annotations

from collections.abc import Sequence

from miniroom.tools import MAX_OUTPUT_BYTES, OutputFolder, keep_head
from miniroom.web.chain import Attempt
from miniroom.web.convert import PageText
from miniroom.web.services import FetchedPage, SearchResults

_SUFFIXES = {"text/html": ".html", "application/json": ".json", "text/csv": ".csv", "application/xml": ".xml"}


def failures_line(failures: Sequence[Attempt]) -> str:
    return "; ".join(attempt.line() for attempt in failures)


def fetch_header(requested: str, page: FetchedPage, service: str, failures: Sequence[Attempt]) -> str:
    moved = f" (redirected from {requested})" if page.url != requested else ""
    lines = [f"Fetched {page.url}{moved} with {service}"]
    if failures:
        lines.append(f"Failed first: {failures_line(failures)}")
    return "\n".join(lines)


def fetch_body(text: PageText, max_lines: int, folder: OutputFolder) -> tuple[str, str | None]:
    """The page for the model and, when it is over the read caps, the file holding all of it."""
    head = keep_head(text.text, max_lines, MAX_OUTPUT_BYTES)
    if not head.truncated:
        return text.text, None
    suffix = ".md" if text.converted else _SUFFIXES.get(text.media_type, ".txt")
    with folder.new_file("miniroom-fetch-", suffix) as file:
        file.write(text.text.encode("utf-8"))
        path = file.name
    size = len(text.text.encode("utf-8"))
    note = (
        f"[The page is {size / 1024:,.0f} KB, {head.total_lines:,} lines; shown: lines 1-{head.kept_lines}. "
        f"All of it is in {path}: read it with read, offset={head.kept_lines + 1} to go on.]"
    )
    return f"{head.text}\n\n{note}", path


def results_count(count: int) -> str:
    return f"{count} result" if count == 1 else f"{count} results"


def search_text(query: str, results: SearchResults, service: str, failures: Sequence[Attempt]) -> str:
    lines = [f"Answer: {results.answer}", ""] if results.answer else []
    for number, hit in enumerate(results.hits, start=1):
        lines.append(f"{number}. {hit.title}")
        lines.append(f"   {hit.url}")
        if hit.snippet:
            lines.append(f"   {hit.snippet}")
        if hit.date:
            lines.append(f"   Date: {hit.date}")
    if not results.hits:
        lines.append("(no results, only the answer above)")
    footer = f"[{results_count(len(results.hits))} for {query!r} from {service}"
    footer += f"; failed first: {failures_line(failures)}]" if failures else "]"
    return "\n".join([*lines, "", footer])


def failed_text(what: str, failures: Sequence[Attempt], final: str | None) -> str:
    if final is not None:
        earlier = failures[:-1]
        text = f"{what}: {final} (service {failures[-1].service})"
        return text + (f". Failed before it: {failures_line(earlier)}" if earlier else "")
    return f"{what}: every service failed. {failures_line(failures)}"
