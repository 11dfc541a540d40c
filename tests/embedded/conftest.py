"""A real embedded-rooms database in a temporary data directory."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from miniroom.transports.embedded import RoomStore


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RoomStore]:
    room_store = RoomStore.open(tmp_path)
    yield room_store
    room_store.close()
