"""The chat page shell and its assets: served by us, locked down by CSP, user text escaped."""

from __future__ import annotations

from pathlib import Path

from miniroom.server import create_app
from miniroom.transports.embedded import RoomStore
from tests.web.support import client


async def test_the_page_escapes_the_user_name_and_forbids_inline_scripts(tmp_path: Path) -> None:
    store = RoomStore.open(tmp_path, local_display_name='<img src=x onerror="alert(1)">')
    async with client(create_app(store)) as local:
        response = await local.get("/")
        script = await local.get("/static/app.js")
        style = await local.get("/static/app.css")
    store.close()
    assert response.status_code == 200
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in response.text
    assert "<img" not in response.text
    assert "script-src 'self'" in response.headers["content-security-policy"]
    assert 'src="/static/app.js"' in response.text
    assert script.status_code == 200
    assert "javascript" in script.headers["content-type"]
    assert "innerHTML" not in script.text
    assert style.status_code == 200
