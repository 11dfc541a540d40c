"""The page's own files (`static/`), read once at start and answered from memory: no file system or worker
thread per request, which is most of a small file's cost. Each carries its ETag, so a browser that has it
revalidates with one short answer (304) instead of loading it again."""

from __future__ import annotations

import functools
import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from miniroom.server.errors import ApiError

STATIC_DIR = Path(__file__).with_name("static")
_TYPES = {".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8"}


@dataclass(frozen=True)
class StaticFile:
    body: bytes
    media_type: str
    etag: str


def _load(folder: Path) -> dict[str, StaticFile]:
    files = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            body = path.read_bytes()
            guessed = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
            media_type = _TYPES.get(path.suffix, guessed)
            etag = f'"{hashlib.sha256(body).hexdigest()[:20]}"'
            files[path.relative_to(folder).as_posix()] = StaticFile(body, media_type, etag)
    return files


@functools.cache
def _files() -> dict[str, StaticFile]:
    return _load(STATIC_DIR)


async def static_file(request: Request) -> Response:
    found = _files().get(request.path_params["path"])
    if found is None:
        raise ApiError(404, "M_NOT_FOUND", f"no file {request.url.path}; the page's files are under /static/")
    headers = {"ETag": found.etag, "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}
    if request.headers.get("if-none-match") == found.etag:
        return Response(status_code=304, headers=headers)
    return Response(found.body, media_type=found.media_type, headers=headers)


ROUTES = [Route("/static/{path:path}", static_file, methods=["GET", "HEAD"])]
