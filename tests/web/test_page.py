"""The chat page shell and its assets (vendored libraries too): served by us, locked down by CSP, user text
escaped."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette

from miniroom.server import create_app
from miniroom.transports.embedded import RoomStore
from tests.web.support import client

SCRIPTS = ("app.js", "api.js", "model.js", "render.js", "vendor/marked.umd.js", "vendor/purify.min.js")


async def test_the_page_escapes_the_user_name_and_forbids_inline_scripts(tmp_path: Path) -> None:
    store = RoomStore.open(tmp_path, local_display_name='<img src=x onerror="alert(1)">')
    async with client(create_app(store)) as local:
        response = await local.get("/")
        scripts = {name: await local.get(f"/static/{name}") for name in SCRIPTS}
        style = await local.get("/static/app.css")
    store.close()
    assert response.status_code == 200
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in response.text
    assert "<img" not in response.text
    assert "script-src 'self'" in response.headers["content-security-policy"]
    assert '<script src="/static/app.js" type="module">' in response.text
    assert '<script src="/static/vendor/marked.umd.js" defer>' in response.text
    assert '<script src="/static/vendor/purify.min.js" defer>' in response.text
    for name, script in scripts.items():
        assert script.status_code == 200, name
        assert "javascript" in script.headers["content-type"], name
    for name in ("app.js", "api.js", "model.js", "render.js"):
        # Markup reaches the page only through DOMPurify (render.js), as a DOM fragment.
        assert "innerHTML" not in scripts[name].text, name
    assert style.status_code == 200


async def test_the_page_files_come_with_their_type_and_revalidate_by_etag(app: Starlette) -> None:
    async with client(app) as http:
        first = await http.get("/static/app.js")
        assert first.status_code == 200
        assert first.headers["content-type"] == "text/javascript; charset=utf-8"
        assert first.headers["cache-control"] == "no-cache"
        again = await http.get("/static/app.js", headers={"If-None-Match": first.headers["etag"]})
        assert (again.status_code, again.content) == (304, b"")
        missing = await http.get("/static/../page.py")
        assert missing.status_code == 404
        assert (await http.get("/static/vendor/purify.min.js")).status_code == 200
