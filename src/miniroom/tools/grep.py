"""The `grep` tool: search file contents with rg (or Python's `re` when rg is missing)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field

from miniroom.engine import ToolContext, ToolError, ToolResult
from miniroom.tools.base import Params
from miniroom.tools.fence import Fence, FileTool, refuse
from miniroom.tools.found import file_lines, open_found, opened_root
from miniroom.tools.output import keep_head
from miniroom.tools.paths import InsidePath, inside_path, open_regular_file
from miniroom.tools.ripgrep import find_rg, matches_name_glob, run_rg, search_time_limit, walk_files

MAX_LINE_CHARS = 500
_BINARY_SNIFF_BYTES = 8192
_RG_LINE = re.compile(r"(\d+)([:-])(.*)", re.DOTALL)


class GrepParams(Params):
    pattern: str = Field(min_length=1, description="Regex to search for")
    path: str = Field(".", description="File or folder to search")
    glob: str = Field("", description="Only files matching this glob, e.g. *.py")
    ignore_case: bool = Field(False, description="Case-insensitive")
    literal: bool = Field(False, description="Pattern is plain text")
    context: int = Field(0, ge=0, le=20, description="Context lines")
    limit: int = Field(100, ge=1, description="Max matches")


@dataclass(frozen=True)
class GrepLine:
    """One output line: a match or context line; without `path`, a notice from rg or (empty) a `--` gap."""

    path: str | None
    number: int = 0
    text: str = ""
    is_match: bool = False

    def render(self) -> str:
        if self.path is None:
            return self.text or "--"
        text = (
            self.text[:MAX_LINE_CHARS] + " [line truncated]" if len(self.text) > MAX_LINE_CHARS else self.text
        )
        return f"{self.path}:{self.number}: {text}" if self.is_match else f"{self.path}-{self.number}- {text}"


class GrepTool(FileTool[GrepParams]):
    name = "grep"
    description = (
        "Search file contents for a regex (ripgrep syntax), skipping .gitignored files. "
        "Prints file:line: text."
    )
    params_model = GrepParams

    async def run(self, params: GrepParams, ctx: ToolContext) -> ToolResult:
        target = inside_path(ctx.cwd, params.path)
        fence = self.fence
        with _opened_target(target, params.path) as file:
            refuse(fence.hidden(target.path, folder=file is None), target, params.path)
            rg = find_rg()
            async with search_time_limit(ctx.timeout):
                if rg is None:
                    lines = await asyncio.to_thread(_python_grep, target, file, params, fence)
                else:
                    lines = await _rg_grep(rg, target, file, params, fence)
        return _format(lines, params)

    def summary(self, arguments: dict[str, Any]) -> str:
        where = str(arguments.get("path", "."))
        return f'Grep "{arguments.get("pattern", "")}"' + ("" if where == "." else f" {where}")


@contextlib.contextmanager
def _opened_target(target: InsidePath, shown: str) -> Iterator[int | None]:
    """The file searched, opened beneath the working folder (None for a folder, which is walked instead)."""
    try:
        fd = open_regular_file(target)
    except FileNotFoundError:
        raise ToolError(f"Path not found: {shown}. Check it with ls or find.") from None
    except IsADirectoryError:
        yield None
        return
    except OSError as error:
        raise ToolError(f"Cannot search {shown}: {error.strerror}.") from None
    try:
        yield fd
    finally:
        os.close(fd)


def _rg_args(target: InsidePath, file: int | None, params: GrepParams) -> list[str]:
    args = ["--null", "--line-number", "--with-filename", "--no-heading", "--color=never", "--sort=path"]
    # rg cuts long lines itself, so a minified file cannot flood the pipe; we cut again to our own width.
    args += [f"--max-columns={MAX_LINE_CHARS}", "--max-columns-preview"]
    args += ["--ignore-case"] if params.ignore_case else []
    args += ["--fixed-strings"] if params.literal else []
    args += [f"--context={params.context}"] if params.context else []
    args += [f"--glob={params.glob}"] if params.glob else []
    args += ["--regexp", params.pattern]
    if file is not None:  # the file we opened comes in on stdin, so rg never opens a path of its own
        return [*args, "--", "-"]
    # Without a path rg prints names relative to cwd; with "." it would prefix every one with "./".
    return args if target.path == target.root else [*args, "--", target.relative]


async def _rg_grep(
    rg: str, target: InsidePath, file: int | None, params: GrepParams, fence: Fence
) -> list[GrepLine]:
    # Each match brings at most 2*context lines of context and one `--`: enough lines to see limit+1 matches.
    max_lines = (params.limit + 1) * (2 * params.context + 2)
    args = _rg_args(target, file, params)
    output = await run_rg(rg, args, target.root, max_lines, stdin=file)
    if output.returncode == 2 and not output.lines:
        raise ToolError(
            f"rg could not search for {params.pattern!r}:\n{output.stderr.strip()}\n"
            "Fix the regex, or set literal to search for the text as it is."
        )
    lines = [_parse_rg_line(line) for line in output.lines]
    if file is None:  # rg walked by name: keep what the files, opened beneath the folder, still say
        return await asyncio.to_thread(_lines_inside, target.root, lines, fence)
    return [dataclasses.replace(line, path=target.shown) if line.path else line for line in lines]


def _lines_inside(root: Path, lines: list[GrepLine], fence: Fence) -> list[GrepLine]:
    """The lines whose file, opened beneath `root` without following links, holds them and is not hidden by
    `fence`; gaps tidied."""
    by_file: dict[str, list[GrepLine]] = {}
    for line in lines:
        if line.path is not None and not fence.hides(root / line.path):
            by_file.setdefault(line.path, []).append(line)
    with opened_root(root) as root_fd:
        kept_files = {path for path, shown in by_file.items() if _file_holds(root_fd, path, shown)}
    kept: list[GrepLine] = []
    for line in lines:
        if line.path is None and (not kept or kept[-1] == GrepLine(None)) and line.text == "":
            continue  # a `--` gap with nothing kept before it
        if line.path is None or line.path in kept_files:
            kept.append(line)
    return _strip_gap(kept)


def _file_holds(root_fd: int, path: str, shown: list[GrepLine]) -> bool:
    fd = open_found(root_fd, path)
    if fd is None:
        return False
    try:
        actual = file_lines(fd, max(line.number for line in shown))
    finally:
        os.close(fd)
    return all(
        0 < line.number <= len(actual) and _same_line(line.text, actual[line.number - 1]) for line in shown
    )


def _same_line(shown: str, actual: str) -> bool:
    if shown == actual:
        return True
    preview, cut, _ = shown.rpartition(" [... ")  # rg's preview of a line longer than --max-columns
    return bool(cut) and actual.startswith(preview.rstrip("\ufffd"))


def _parse_rg_line(line: str) -> GrepLine:
    path, nul, rest = line.partition("\0")
    parsed = _RG_LINE.fullmatch(rest) if nul else None
    if parsed is None:  # `--` between groups of context, or a notice such as "binary file matches"
        return GrepLine(None, text="" if line == "--" else line)
    return GrepLine(path, int(parsed.group(1)), parsed.group(3), parsed.group(2) == ":")


def _python_grep(target: InsidePath, file: int | None, params: GrepParams, fence: Fence) -> list[GrepLine]:
    """The fallback: Python's `re` over the same files rg would search; stops past `limit` matches."""
    regex = _compile(params)
    if file is not None:
        return _search(_read_all(file), target.shown, regex, params.context)
    found: list[GrepLine] = []
    matches = 0
    for name in walk_files(target.path, target.root):
        if (params.glob and not matches_name_glob(params.glob, name)) or fence.hides(target.path / name):
            continue
        path = InsidePath(target.root, target.path / name)
        data = _read_beneath(path)
        file_lines = [] if data is None else _search(data, path.shown, regex, params.context)
        if file_lines and found and params.context:
            found.append(GrepLine(None))
        found += file_lines
        matches += sum(line.is_match for line in file_lines)
        if matches > params.limit:
            break
    return found


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _read_beneath(path: InsidePath) -> bytes | None:
    """A walked file's bytes, opened without following links; None when it cannot be (skipped, as rg does)."""
    try:
        fd = open_regular_file(path)
    except (OSError, ToolError):
        return None
    try:
        return _read_all(fd)
    finally:
        os.close(fd)


def _compile(params: GrepParams) -> re.Pattern[str]:
    source = re.escape(params.pattern) if params.literal else params.pattern
    try:
        return re.compile(source, re.IGNORECASE if params.ignore_case else 0)
    except re.error as error:
        raise ToolError(
            f"Invalid regex {params.pattern!r}: {error}. Escape special characters or set literal."
        ) from None


def _search(data: bytes, shown: str, regex: re.Pattern[str], context: int) -> list[GrepLine]:
    if b"\0" in data[:_BINARY_SNIFF_BYTES]:
        return []  # binary, skipped as rg does
    # Split on LF only, as rg does (str.splitlines would also split on form feeds and U+2028).
    lines = [
        line.removesuffix("\r") for line in data.decode("utf-8", "replace").removesuffix("\n").split("\n")
    ]
    hits = {index for index, line in enumerate(lines) if regex.search(line)}
    shown_indexes = sorted(
        {i for hit in hits for i in range(hit - context, hit + context + 1) if 0 <= i < len(lines)}
    )
    result: list[GrepLine] = []
    for position, index in enumerate(shown_indexes):
        if position and index != shown_indexes[position - 1] + 1:
            result.append(GrepLine(None))
        result.append(GrepLine(shown, index + 1, lines[index], index in hits))
    return result


def _format(lines: list[GrepLine], params: GrepParams) -> ToolResult:
    kept, truncated = _trim_to_limit(lines, params.limit)
    if not kept:
        return ToolResult.text(f"No matches found for {params.pattern!r} in {params.path}")
    capped = keep_head("\n".join(line.render() for line in kept))
    if not (truncated or capped.truncated):
        return ToolResult.text(capped.text)
    shown = "the matches that fit in 50 KB" if capped.truncated else f"the first {params.limit} matches"
    return ToolResult.text(
        f"{capped.text}\n\n[Showing {shown}. Narrow the pattern, path or glob, or raise limit.]"
    )


def _trim_to_limit(lines: list[GrepLine], limit: int) -> tuple[list[GrepLine], bool]:
    """Keep lines up to the limit-th match and its trailing context; say whether anything was dropped."""
    kept: list[GrepLine] = []
    matches = 0
    for line in lines:
        if line.is_match:
            if matches == limit:
                return _strip_gap(kept), True
            matches += 1
        kept.append(line)
    return _strip_gap(kept), False


def _strip_gap(lines: list[GrepLine]) -> list[GrepLine]:
    return lines[:-1] if lines and lines[-1] == GrepLine(None) else lines
