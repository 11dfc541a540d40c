"""What a body becomes: HTML as Markdown, machine formats as they are, binary refused with its type."""

from __future__ import annotations

import pytest

from miniroom.web.convert import page_text
from miniroom.web.services import FetchedPage, FinalFailure, ServiceFailure

URL = "https://example.org/x"


def page(content_type: str, body: bytes) -> FetchedPage:
    return FetchedPage(URL, 200, content_type, body)


def test_html_becomes_markdown_without_images_and_keeps_code_languages() -> None:
    html = (
        b"<h1>Hi</h1><p>a <b>b</b> <img src=x.png alt=pic> <a href=/l>link</a></p>"
        b"<pre><code class=language-py>x=1</code></pre>"
    )
    text = page_text(page("text/html", html))
    assert (text.text, text.converted) == ("# Hi\n\na **b** [link](/l)\n\n```py\nx=1\n```\n", True)


def test_markdown_false_returns_the_raw_html() -> None:
    assert page_text(page("text/html", b"<h1>Hi</h1>"), markdown=False).text == "<h1>Hi</h1>"


@pytest.mark.parametrize(
    ("content_type", "body"),
    [
        ("application/json", b'{"a": [1, 2]}'),
        ("text/csv", b"a,b\n1,2\n"),
        ("application/xml", b"<a><b>1</b></a>"),
        ("application/rss+xml", b"<rss><channel/></rss>"),
        ("text/plain; charset=utf-8", b"plain"),
        ("application/vnd.api+json", b"{}"),
        ("", b"no type, but text"),
    ],
)
def test_machine_formats_and_text_pass_through_as_they_are(content_type: str, body: bytes) -> None:
    text = page_text(page(content_type, body))
    assert (text.text, text.converted) == (body.decode(), False)


def test_the_charset_is_honoured() -> None:
    assert page_text(page("text/plain; charset=iso-8859-1", "café".encode("latin-1"))).text == "café"
    html = '<meta charset="windows-1251"><p>привет</p>'.encode("cp1251")
    assert page_text(page("text/html", html)).text.strip() == "привет"


def test_an_unlabelled_html_page_is_converted_and_labelled_text_sniffed() -> None:
    assert page_text(page("application/octet-stream", b"<!doctype html><h1>T</h1>")).text == "# T\n"
    assert page_text(page("application/octet-stream", b"notes\n")).text == "notes\n"


@pytest.mark.parametrize(
    ("content_type", "body", "named"),
    [
        ("application/pdf", b"%PDF-1.7", "a PDF document (application/pdf)"),
        ("image/png", b"\x89PNG\r\n", "an image (image/png)"),
        ("application/octet-stream", b"\x00\x01\x02", "binary data (application/octet-stream)"),
        ("video/mp4", b"....", "a video (video/mp4)"),
    ],
)
def test_binary_content_is_refused_naming_its_type(content_type: str, body: bytes, named: str) -> None:
    with pytest.raises(FinalFailure) as error:
        page_text(page(content_type, body))
    assert str(error.value) == f"{URL} is {named}, not text: fetch reads text and web pages only"


def test_an_empty_body_or_html_without_text_passes_the_turn_on() -> None:
    with pytest.raises(ServiceFailure, match="empty answer"):
        page_text(page("text/html", b"  \n"))
    with pytest.raises(ServiceFailure, match="may be built by scripts"):
        page_text(page("text/html", b"<div id=app></div><script>render()</script>"))


def test_html_too_large_to_convert_is_a_final_failure() -> None:
    with pytest.raises(FinalFailure, match=r"6\.0 MB of HTML, more than the 5 MB fetch converts"):
        page_text(page("text/html", b"<p>" + b"x" * (6 * 1024 * 1024) + b"</p>"))
