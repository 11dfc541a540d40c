"""What a fetched body becomes for the model: HTML as Markdown (html-to-markdown), text and machine formats
(JSON, CSV, XML, ...) as they are, binary content refused with its type named. Pure.

html-to-markdown 3.x: https://pypi.org/project/html-to-markdown/ (`convert(html, options).content`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from miniroom.web.services import FetchedPage, FinalFailure, ServiceFailure

MAX_CONVERT_BYTES = 5 * 1024 * 1024  # more HTML than this takes seconds and hundreds of MB to convert
_SNIFF_BYTES = 8192
_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
_TEXT_APPLICATION_TYPES = frozenset(
    {
        "application/json", "application/xml", "application/javascript", "application/ecmascript",
        "application/x-javascript", "application/yaml", "application/x-yaml", "application/toml",
        "application/x-ndjson", "application/csv", "application/sql", "application/graphql",
        "application/x-sh", "application/x-tex", "application/rtf", "application/atom+xml",
    }
)  # fmt: skip
# Labels servers also put on text, so the bytes decide.
_SNIFFED_TYPES = frozenset({"", "application/octet-stream", "binary/octet-stream", "application/unknown"})
_BINARY_NAMES = {
    "application/pdf": "a PDF document",
    "application/zip": "a ZIP archive",
    "application/gzip": "a gzip archive",
    "application/msword": "a Word document",
    "application/vnd.ms-excel": "an Excel workbook",
}
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_.:-]+)""", re.I)
_HTML_START = re.compile(rb"^\s*(<!--.*?-->\s*)*<(!doctype\s+html|html|head|body)\b", re.I | re.S)


@dataclass(frozen=True)
class PageText:
    text: str
    media_type: str
    converted: bool  # HTML turned into Markdown


def media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def page_text(page: FetchedPage, markdown: bool = True) -> PageText:
    """The body as text for the model. ServiceFailure for an empty body or an HTML page without text (the
    next service may render it); FinalFailure for binary content or HTML that cannot be converted."""
    media = media_type(page.content_type)
    if not page.body.strip():
        raise ServiceFailure(f"empty answer (HTTP {page.status}, no content)")
    kind = _classify(media, page.body)
    if kind == "binary":
        raise FinalFailure(_binary_refusal(page.url, media))
    text = _decode(page.body, page.content_type, html=kind == "html")
    if kind != "html" or not markdown:
        return PageText(text, media or "text/plain", converted=False)
    converted = html_to_markdown(text)
    if not converted.strip():
        raise ServiceFailure("the page's HTML holds no text (it may be built by scripts)")
    return PageText(converted, media or "text/html", converted=True)


def html_to_markdown(html: str) -> str:
    """HTML as Markdown; FinalFailure when it is too large or the converter fails."""
    import html_to_markdown as converter  # imported at the first fetch: it is a compiled module

    size = len(html.encode("utf-8", "replace"))
    if size > MAX_CONVERT_BYTES:
        most = MAX_CONVERT_BYTES // 1024 // 1024
        raise FinalFailure(
            f"the page is {size / 1024 / 1024:.1f} MB of HTML, more than the {most} MB fetch converts to "
            "Markdown; call fetch with markdown=false to get the raw HTML as a file"
        )
    options = converter.ConversionOptions(skip_images=True, extract_metadata=False)
    try:
        return converter.convert(html, options).content or ""
    except Exception as error:  # the converter's own errors (ConversionError, ParseError, ...)
        raise FinalFailure(
            f"the page's HTML could not be converted to Markdown ({type(error).__name__}: {error}); "
            "call fetch with markdown=false to get the raw HTML"
        ) from None


def _classify(media: str, body: bytes) -> str:
    if media in _HTML_TYPES:
        return "html"
    if media.startswith("text/") or media in _TEXT_APPLICATION_TYPES or media.endswith(("+json", "+xml")):
        return "text"
    if media in _SNIFFED_TYPES:
        head = body[:_SNIFF_BYTES]
        if b"\0" in head or not _decodes(head):
            return "binary"
        return "html" if _HTML_START.match(head) else "text"
    return "binary"


def _decodes(head: bytes) -> bool:
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        return error.start >= len(head) - 3  # a character cut at the end of the sniffed part
    return True


def _decode(body: bytes, content_type: str, *, html: bool) -> str:
    charset = _charset(content_type) or (_meta_charset(body) if html else None) or "utf-8"
    try:
        return body.decode(charset, "replace")
    except LookupError:  # a charset Python does not know
        return body.decode("utf-8", "replace")


def _charset(content_type: str) -> str | None:
    for parameter in content_type.split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset" and value.strip():
            return value.strip().strip("\"'")
    return None


def _meta_charset(body: bytes) -> str | None:
    match = _META_CHARSET.search(body[:2048])
    return match.group(1).decode("ascii") if match else None


def _binary_refusal(url: str, media: str) -> str:
    what = _BINARY_NAMES.get(media)
    if what is None:
        family = media.split("/", 1)[0]
        what = {"image": "an image", "audio": "audio", "video": "a video", "font": "a font"}.get(
            family, "binary data"
        )
    return f"{url} is {what} ({media or 'no content type'}), not text: fetch reads text and web pages only"
