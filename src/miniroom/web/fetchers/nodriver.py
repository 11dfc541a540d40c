"""Nodriver: undetected Chromium (the `nodriver` package) renders the page, run from a Python venv this
service provisions on first use from the package registry, under the engine's data folder (`~/.mini/web/`).

nodriver: https://ultrafunkamsterdam.github.io/nodriver (`start(headless, browser_executable_path, sandbox)`,
`browser.get(url)`, `tab.sleep(s)`, `tab.get_content()`). The page script prints ScriptFetch's envelope.
"""

from __future__ import annotations

import asyncio
import sys
import weakref
from pathlib import Path

from miniroom.web.fetchers.script import read_envelope
from miniroom.web.process import ProcessFailure, run_process
from miniroom.web.services import FetchedPage, ServiceEnvironment, ServiceFailure
from miniroom.web.settings import ServiceSettings

VENV_FOLDER = Path("web", "nodriver-venv")
PACKAGE = "nodriver"
PROVISION_TIMEOUT_SECONDS = 600.0
READY_MARK = "miniroom-ready"
PAGE_SCRIPT_NAME = "miniroom_nodriver_page.py"
PAGE_SCRIPT = '''\
"""Written by miniroom: render one page with nodriver and print {"url", "status", "contentType", "body"}."""
import json
import os
import sys

import nodriver


async def main(url, wait_seconds):
    flags = ["--disable-gpu", "--disable-dev-shm-usage"]
    options = {"headless": True, "sandbox": False, "browser_args": flags}
    if os.path.exists("/usr/bin/chromium"):
        options["browser_executable_path"] = "/usr/bin/chromium"
    browser = await nodriver.start(**options)
    try:
        tab = await browser.get(url)
        await tab.sleep(wait_seconds)
        body = await tab.get_content()
        final = await tab.evaluate("location.href")
    finally:
        browser.stop()
    envelope = {"url": final or url, "status": 200, "contentType": "text/html; charset=utf-8", "body": body}
    sys.stdout.write(json.dumps(envelope))


nodriver.loop().run_until_complete(main(sys.argv[1], float(sys.argv[2]) / 1000))
'''
# One provisioning at a time, however many services fetch at once (a lock belongs to one event loop).
_locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = weakref.WeakKeyDictionary()


def venv_python(venv: Path) -> Path:
    return venv / "bin" / "python"


async def provision(venv: Path, where: ServiceEnvironment) -> Path:
    """The venv's Python, once `nodriver` is installed in it (created on first use), and the page script."""
    async with _locks.setdefault(asyncio.get_running_loop(), asyncio.Lock()):
        if not (venv / READY_MARK).exists():
            await _step([sys.executable, "-m", "venv", "--clear", str(venv)], where, "creating the venv")
            pip = [str(venv_python(venv)), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
            await _step([*pip, PACKAGE], where, f"installing {PACKAGE} from the package registry")
            (venv / READY_MARK).write_text(PACKAGE + "\n", encoding="utf-8")
        script = venv / PAGE_SCRIPT_NAME
        if not script.exists() or script.read_text(encoding="utf-8") != PAGE_SCRIPT:
            script.write_text(PAGE_SCRIPT, encoding="utf-8")
    return venv_python(venv)


async def _step(argv: list[str], where: ServiceEnvironment, what: str) -> None:
    try:
        finished = await run_process(argv, env=where.env, seconds=PROVISION_TIMEOUT_SECONDS)
    except ProcessFailure as error:
        raise ServiceFailure(f"Nodriver's venv: {what} failed: {error}") from None
    if finished.exit_code != 0:
        raise ServiceFailure(f"Nodriver's venv: {what} failed: {finished.stderr_tail()}")


class NodriverFetcher:
    def __init__(self, settings: ServiceSettings, where: ServiceEnvironment) -> None:
        self.wait_ms = settings.number("WaitMs")
        self.timeout = settings.number("TimeoutSec")
        self.where = where
        self.venv = where.data_dir / VENV_FOLDER

    async def fetch(self, url: str) -> FetchedPage:
        python = await provision(self.venv, self.where)
        argv = [str(python), "-I", str(self.venv / PAGE_SCRIPT_NAME), url, f"{self.wait_ms:g}"]
        try:
            finished = await run_process(argv, env=self.where.env, seconds=self.timeout)
        except ProcessFailure as error:
            raise ServiceFailure(str(error)) from None
        if finished.exit_code != 0:
            raise ServiceFailure(
                f"nodriver failed: {finished.stderr_tail() or f'exit code {finished.exit_code}'}"
            )
        return read_envelope(finished.stdout, url)


def create(settings: ServiceSettings, where: ServiceEnvironment, type_name: str) -> NodriverFetcher:
    return NodriverFetcher(settings, where)
