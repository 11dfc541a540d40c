"""ScriptFetch: a shell command of the user's fetches the page and prints a JSON envelope on stdout.

The command runs with `bash -c` in the project folder, `$1` being the URL (write `$$` for a `$` the shell
should see: settings values expand `$VAR` first). The envelope: `{"url": final URL, "status": 200,
"contentType": "text/html; charset=utf-8", "body": "<the page as text>"}`; only `body` is required.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from miniroom.tools import shell_argv
from miniroom.web.process import ProcessFailure, run_process
from miniroom.web.services import FetchedPage, ServiceEnvironment, ServiceFailure
from miniroom.web.settings import ServiceSettings


def json_printed(stdout: bytes, shape: str) -> Any:
    """What a command printed, as JSON; ServiceFailure naming the `shape` it should have printed."""
    try:
        return json.loads(stdout)
    except (json.JSONDecodeError, UnicodeDecodeError):
        shown = stdout[:200].decode("utf-8", "replace")
        raise ServiceFailure(f"did not print a JSON {shape}; it printed {shown!r}") from None


def read_envelope(stdout: bytes, requested: str) -> FetchedPage:
    """The page a JSON envelope describes; ServiceFailure when it is not one, or holds an HTTP error."""
    envelope = json_printed(stdout, 'envelope ({"body": ...})')
    if not isinstance(envelope, Mapping) or not isinstance(envelope.get("body"), str):
        raise ServiceFailure(
            'printed JSON without a "body" text: print {"url", "status", "contentType", "body"}'
        )
    status = envelope.get("status", 200)
    if not isinstance(status, int) or isinstance(status, bool):
        raise ServiceFailure(f'printed a "status" that is not a whole number: {status!r}')
    if status >= 400:
        raise ServiceFailure(f"HTTP {status}")
    url = envelope.get("url") if isinstance(envelope.get("url"), str) else requested
    content_type = envelope.get("contentType") if isinstance(envelope.get("contentType"), str) else ""
    return FetchedPage(url or requested, status, content_type or "", envelope["body"].encode("utf-8"))


async def run_script(command: str, argument: str, where: ServiceEnvironment, seconds: float) -> bytes:
    """The command's stdout; ServiceFailure when it failed, naming its exit code and the end of its stderr."""
    argv = [*shell_argv(command, where.env.get("PATH")), "miniroom", argument]
    try:
        finished = await run_process(argv, env=where.env, seconds=seconds, cwd=where.project_dir)
    except ProcessFailure as error:
        raise ServiceFailure(str(error)) from None
    if finished.exit_code != 0:
        said = finished.stderr_tail()
        raise ServiceFailure(f"the command exited with {finished.exit_code}" + (f": {said}" if said else ""))
    return finished.stdout


class ScriptFetcher:
    def __init__(self, settings: ServiceSettings, where: ServiceEnvironment) -> None:
        self.command = settings.text("Command") or ""
        self.timeout = settings.number("TimeoutSec")
        self.where = where

    async def fetch(self, url: str) -> FetchedPage:
        return read_envelope(await run_script(self.command, url, self.where, self.timeout), url)


def create(settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> ScriptFetcher:
    return ScriptFetcher(settings, where)
