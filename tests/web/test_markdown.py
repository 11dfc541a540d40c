"""Messages render as Markdown in Chromium, sanitised: no HTML from a message ever runs."""

from __future__ import annotations

import random

import pytest
from playwright.async_api import Browser, Page, expect

from tests.web.conftest import LiveServer
from tests.web.support import YOU, Agent, lobby, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.asyncio(loop_scope="session")]

MARKDOWN = """# Plan
Some *emphasis*, **bold**, `inline code`, ~~gone~~ and a [link](https://example.org/docs).
A second line of the same paragraph.

- first
- second

3. three
4. four

```python
print("<b>hi</b>")
```

| name | value |
| --- | ---: |
| a | 1 |

> quoted
"""

# Each would run `window.__xss = N` (or load something) if a message's HTML were interpreted.
XSS_VECTORS = [
    "<script>window.__xss = 1</script>",
    '<img src=x onerror="window.__xss = 2">',
    "[click](javascript:window.__xss=3)",
    "[click](JaVaScRiPt:window.__xss=4)",
    "[click](&#106;avascript:window.__xss=5)",
    "[data](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX194c3M9Njwvc2NyaXB0Pg==)",
    "![pixel](javascript:window.__xss=7)",
    "![pixel](https://tracker.example/pixel.png)",
    '<a href="javascript:window.__xss=8">a</a>',
    '<svg onload="window.__xss = 9"></svg>',
    '<iframe src="javascript:window.__xss=10"></iframe>',
    '<details open ontoggle="window.__xss = 11">x</details>',
    "<math><mtext><table><mglyph><style><img src=x onerror=window.__xss=12>",
    '<form action="javascript:window.__xss=13"><button>go</button></form>',
    "<style>body { display: none }</style>",
    '[title](https://example.org "t\\" onmouseover=\\"window.__xss=14")',
    '<a href="https://example.org" onclick="window.__xss=15">ok</a>',
    "```html\n<script>window.__xss = 16</script>\n```",
    "[vb](vbscript:msgbox(17))",
    '<object data="javascript:window.__xss=18"></object><embed src="javascript:window.__xss=19">',
]
# What the rendered bodies may hold: Markdown's elements, and links only to the web or mail.
FORBIDDEN = "script, img, iframe, svg, math, style, form, button, input, details, object, embed, video, audio"
INSPECT = """bodies => ({
    forbidden: bodies.flatMap(body => [...body.querySelectorAll(FORBIDDEN)].map(node => node.outerHTML)),
    handlers: bodies.flatMap(body => [...body.querySelectorAll("*")]
        .flatMap(node => [...node.attributes].filter(a => a.name.startsWith("on") || a.name === "style")
        .map(a => `${node.tagName} ${a.name}`))),
    hrefs: bodies.flatMap(body => [...body.querySelectorAll("[href], [src], [action]")]
        .map(node => node.getAttribute("href") || node.getAttribute("src") || node.getAttribute("action"))),
    xss: window.__xss,
})""".replace("FORBIDDEN", repr(FORBIDDEN))


async def test_markdown_renders_in_agent_replies_and_my_messages(page: Page, live_server: LiveServer) -> None:
    room_id = lobby(live_server.store)
    Agent(live_server.store, room_id).post(MARKDOWN)
    Agent(live_server.store, room_id, YOU).post("I *agree*: `make test`")
    await page.goto(live_server.url)
    bodies = page.locator("#timeline .message .body")
    reply, mine = bodies.nth(0), bodies.nth(1)
    await expect(reply.locator("h1")).to_have_text("Plan")
    await expect(reply.locator("em").first).to_have_text("emphasis")
    await expect(reply.locator("strong")).to_have_text("bold")
    await expect(reply.locator("p > code")).to_have_text("inline code")
    await expect(reply.locator("del")).to_have_text("gone")
    link = reply.get_by_role("link", name="link")
    await expect(link).to_have_attribute("href", "https://example.org/docs")
    await expect(link).to_have_attribute("target", "_blank")
    await expect(link).to_have_attribute("rel", "noopener noreferrer nofollow")
    await expect(reply.locator("p br")).to_have_count(1)  # a typed line break stays one
    await expect(reply.locator("ul > li")).to_have_text(["first", "second"])
    await expect(reply.locator("ol > li")).to_have_text(["three", "four"])
    await expect(reply.locator("ol")).to_have_attribute("start", "3")
    await expect(reply.locator("pre > code")).to_have_text('print("<b>hi</b>")')
    await expect(reply.locator("table td")).to_have_text(["a", "1"])
    await expect(reply.locator("table td").nth(1)).to_have_attribute("align", "right")
    await expect(reply.locator("blockquote")).to_have_text("quoted")
    await expect(mine.locator("em")).to_have_text("agree")
    await expect(mine.locator("code")).to_have_text("make test")
    await screenshot(page, "markdown.png")


async def test_xss_vectors_render_inert(browser: Browser, live_server: LiveServer) -> None:
    room_id = lobby(live_server.store)
    for n, vector in enumerate(XSS_VECTORS):
        sender = YOU if n % 2 else Agent.user_id
        Agent(live_server.store, room_id, sender).post(vector)
    # Without the page's Content-Security-Policy, so that the rendering alone is what keeps them inert.
    context = await browser.new_context(bypass_csp=True)
    page = await context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: dialogs.append(dialog.message))
    await page.goto(live_server.url)
    bodies = page.locator("#timeline .message .body")
    await expect(bodies).to_have_count(len(XSS_VECTORS))
    await bodies.nth(0).hover()
    found = await bodies.evaluate_all(INSPECT)
    await context.close()
    assert found["forbidden"] == []
    assert found["handlers"] == []
    assert all(href.startswith("https://") for href in found["hrefs"]), found["hrefs"]
    assert found["xss"] is None
    assert dialogs == []


async def test_html_in_a_message_shows_as_typed(page: Page, live_server: LiveServer) -> None:
    room_id = lobby(live_server.store)
    Agent(live_server.store, room_id).post("Use <b>bold</b> or <script>x()</script>, and `<br>` in code")
    await page.goto(live_server.url)
    body = page.locator("#timeline .message .body")
    await expect(body).to_have_text("Use <b>bold</b> or <script>x()</script>, and <br> in code")
    await expect(body.locator("b, script")).to_have_count(0)


async def test_a_streaming_reply_keeps_rendering_as_it_grows(page: Page, live_server: LiveServer) -> None:
    room_id = lobby(live_server.store)
    agent = Agent(live_server.store, room_id)
    await page.goto(live_server.url)
    body = page.locator("#timeline .message .body")
    reply = agent.post("Here is the fix:\n\n```python\ndef add(a, b):")
    await expect(body.locator("pre > code")).to_have_text("def add(a, b):")  # an open fence is code already
    agent.edit(
        reply, "Here is the fix:\n\n```python\ndef add(a, b):\n    return a + b\n```\n\nThen run **pytest**"
    )
    await expect(body.locator("pre > code")).to_have_text("def add(a, b):\n    return a + b")
    await expect(body.locator("strong")).to_have_text("pytest")


# Plain text is drawn without parsing; these cover its edges (lines, paragraphs, quotes, other scripts).
PLAIN_BODIES = [
    "ok",
    "q 12",
    "Thanks, that works. Can you (also) check the tests?",
    'She said "fine" and it\'s done - mostly!',
    "first line\nsecond line\n\nnew paragraph\n\n\n\nand another",
    "Grüße aus Köln, 東京 and naïve café",
    "2024 was a good year. 3 cats",
]
# Near misses: each has Markdown syntax (or a link GitHub's flavour makes), so it must be parsed.
NOT_PLAIN_BODIES = [
    "- a list",
    "1. first",
    "2) second",
    "    indented code",
    "see www.example.org",
    "a *word*",
    "trailing space \nnext",
    "\nleading newline",
    "under\n---",
    "x & y",
    "mail me@example.org",
]
COMPARE = """async (bodies) => {
  const render = await import("/static/render.js");
  const html = (fragment) => {
    const div = document.createElement("div");
    div.append(fragment);
    return div.innerHTML;
  };
  return bodies.map((body) => [
    render.isPlain(body), html(render.renderMarkdown(body)), html(render.parsedMarkdown(body)),
  ]);
}"""


def random_plain_like(count: int) -> list[str]:
    """Strings from the plain alphabet and a few syntax characters, lines and blank lines among them."""
    chance = random.Random(20261202)
    alphabet = "abcé東 ,.?!'\"()-1209\n*_[]#>"
    return ["".join(chance.choice(alphabet) for _ in range(chance.randint(0, 30))) for _ in range(count)]


async def test_plain_text_draws_as_parsed_markdown_would(page: Page, live_server: LiveServer) -> None:
    lobby(live_server.store)
    await page.goto(live_server.url)
    await expect(page.locator("body[data-ready='1']")).to_be_attached()
    samples = PLAIN_BODIES + NOT_PLAIN_BODIES + random_plain_like(800)
    results = await page.evaluate(COMPARE, samples)
    assert [plain for plain, _, _ in results[: len(PLAIN_BODIES)]] == [True] * len(PLAIN_BODIES)
    not_plain = results[len(PLAIN_BODIES) : len(PLAIN_BODIES) + len(NOT_PLAIN_BODIES)]
    assert [plain for plain, _, _ in not_plain] == [False] * len(NOT_PLAIN_BODIES)
    drawn_plain = 0
    for sample, (plain, drawn, parsed) in zip(samples, results, strict=True):
        assert drawn == parsed, sample
        drawn_plain += plain
    assert drawn_plain >= len(PLAIN_BODIES) + 40  # the random ones reach the plain path too
