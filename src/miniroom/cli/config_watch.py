"""`miniroom serve` follows config.yaml: a hand edit applies as a save from the web settings does."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine
from pathlib import Path

from miniroom.agent import load_checked_config
from miniroom.config.config_yaml import ConfigError, RoomsConfig

log = logging.getLogger(__name__)

CHECK_EVERY_SECONDS = 1.0

ApplyConfig = Callable[[RoomsConfig], Awaitable[str]]


def _stamp(path: Path) -> tuple[int, int] | None:
    """What changes when the file is written: its time and size (None while it is missing)."""
    try:
        status = path.stat()
    except OSError:
        return None
    return status.st_mtime_ns, status.st_size


def watch_config(
    path: Path,
    current: Callable[[], RoomsConfig],
    apply: ApplyConfig,
    every: float = CHECK_EVERY_SECONDS,
) -> Coroutine[None, None, None]:
    """Until cancelled: each time config.yaml is written, validate it and apply it when it differs from the
    config served (a save from the web settings has applied it already); an invalid file is logged with its
    problems and the served config stays. The file as it is now is the one served: an edit from the moment
    of this call on counts, even before the watch first runs."""
    return _watch(path, _stamp(path), current, apply, every)


async def _watch(
    path: Path,
    seen: tuple[int, int] | None,
    current: Callable[[], RoomsConfig],
    apply: ApplyConfig,
    every: float,
) -> None:
    while True:
        await asyncio.sleep(every)
        stamp = _stamp(path)
        if stamp == seen or stamp is None:
            continue
        seen = stamp
        try:
            config = await asyncio.to_thread(load_checked_config, path)
        except ConfigError as error:
            log.error("%s changed but cannot be used; still serving the previous version:\n%s", path, error)
            continue
        if config == current():
            continue
        outcome = await apply(config)
        log.info("%s changed: %s", path, outcome)
