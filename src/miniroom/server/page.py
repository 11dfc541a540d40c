"""The web chat page: a server-rendered shell; `static/app.js` fills in rooms and messages from the API, or
from the first reads the page carries when its request is one the API would answer (see `first_reads`)."""

from __future__ import annotations

from html import escape

from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from miniroom.server.api import store_of
from miniroom.server.first_reads import data_block, first_reads

# Everything the page loads comes from this server; no inline script can run even if text slips through.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:;"
        " base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    # Links in messages lead to other sites without a Referer; the page's own writes keep their Origin
    # (under no-referrer a browser sends `Origin: null`, which the API refuses as a foreign page).
    "Referrer-Policy": "same-origin",
}

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>miniroom</title>
<link rel="icon" href="data:,">
{boot}<link rel="stylesheet" href="/static/app.css">
<script src="/static/vendor/marked.umd.js" defer></script>
<script src="/static/vendor/purify.min.js" defer></script>
<script src="/static/app.js" type="module"></script>
{preloads}
</head>
<body data-user-id="{user_id}" data-user-name="{user_name}">
<div class="layout">
  <nav class="sidebar" id="sidebar" aria-label="Rooms">
    <div class="brand">miniroom
      <button type="button" id="settings-open" class="gear" aria-label="Settings" title="Settings">⚙</button>
    </div>
    <ul id="room-list" class="room-list"></ul>
    <label class="compact-toggle"><input type="checkbox" id="compact-toggle"> Compact view</label>
    <div class="me">
      <span id="me-name">{user_name}</span> <span class="muted" id="me-id">{user_id}</span>
      <label class="posting-as">Posting as <select id="posting-as"></select></label>
      <form id="posting-as-other" class="posting-as-other" hidden>
        <input id="posting-as-name" type="text" maxlength="64" autocomplete="off" spellcheck="false"
          placeholder="a name, e.g. Bob Builder" aria-label="Name to post as (Enter switches)">
        <span id="posting-as-error" class="posting-as-error" role="alert" hidden></span>
      </form>
    </div>
  </nav>
  <main class="room" id="room">
    <header class="room-header">
      <button type="button" id="rooms-toggle" class="icon rooms-toggle" aria-controls="sidebar"
        aria-expanded="false" aria-label="Rooms">☰ Rooms</button>
      <h1 id="room-name">Pick a room</h1>
      <span id="room-error" class="label error" hidden>error</span>
      <span id="room-topic" class="muted"></span>
      <span id="room-spend" class="spend muted" hidden></span>
    </header>
    <ol id="timeline" class="timeline" aria-live="polite"
      data-hint="Pick a room from the list of rooms to read its messages and write in it."></ol>
    <p id="room-typing" class="typing" aria-live="polite"></p>
    <form id="composer" class="composer">
      <textarea id="composer-input" rows="1" placeholder="Message (Enter sends, Shift+Enter adds a line)"
        aria-label="Message" disabled></textarea>
      <button type="submit" disabled>Send</button>
    </form>
  </main>
  <aside class="thread" id="thread" hidden aria-label="Thread">
    <header class="room-header">
      <h2>Thread</h2>
      <span id="thread-error" class="label error" hidden>error</span>
      <span id="thread-spend" class="spend muted" hidden></span>
      <button type="button" id="thread-export-md" class="export" aria-label="Export the thread as Markdown"
        title="Download this thread as Markdown">⤓ md</button>
      <button type="button" id="thread-export-json" class="export" aria-label="Export the thread as JSON"
        title="Download this thread as JSON">⤓ json</button>
      <button type="button" id="thread-close" class="icon" aria-label="Close thread">×</button>
    </header>
    <ol id="thread-timeline" class="timeline"></ol>
    <p id="thread-typing" class="typing" aria-live="polite"></p>
    <form id="thread-composer" class="composer">
      <textarea id="thread-input" rows="1" placeholder="Reply in thread"
        aria-label="Reply in thread"></textarea>
      <button type="submit">Reply</button>
    </form>
  </aside>
</div>
<section id="settings" class="hub" hidden aria-label="Settings">
  <header class="hub-header">
    <button type="button" id="settings-back" class="icon" hidden>← Settings</button>
    <h2 id="settings-title">Settings</h2>
    <button type="button" id="settings-close" class="icon" aria-label="Close settings">×</button>
  </header>
  <div id="settings-body" class="hub-body"></div>
</section>
<p id="status" class="status" role="status" hidden></p>
<p id="toast" class="toast" role="status" hidden></p>
{reads}
</body>
</html>
"""


# The modules app.js imports, fetched beside it rather than after it has been read.
CHAT_MODULES = (
    "actions",
    "api",
    "attachments",
    "cards",
    "dom",
    "forms",
    "hub",
    "model",
    "narrow",
    "people",
    "render",
)
_PRELOADS = "\n".join(f'<link rel="modulepreload" href="/static/{name}.js">' for name in CHAT_MODULES)
# A page that does not carry its first reads starts them at once, while its scripts load.
_BOOT = '<script src="/static/boot.js" async></script>\n'


async def chat_page(request: Request) -> HTMLResponse:
    store = store_of(request)
    carries = bool(request.app.state.page_carries_reads)
    reads = data_block(await first_reads(store, request.query_params.get("room"))) if carries else ""
    html = _PAGE.format(
        user_id=escape(store.local_user_id),
        user_name=escape(store.local_display_name),
        preloads=_PRELOADS,
        boot="" if carries else _BOOT,
        reads=reads,
    )
    # Room data in a page is as private as the API's answers, and fresh only now: no cache keeps it.
    headers = {**SECURITY_HEADERS, "Cache-Control": "no-store"} if carries else SECURITY_HEADERS
    return HTMLResponse(html, headers=headers)


ROUTES = [Route("/", chat_page, methods=["GET"])]
