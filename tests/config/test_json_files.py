"""The state files every layer keeps (the Matrix accounts' credentials among them): private to their owner,
and always whole."""

from __future__ import annotations

import json
import stat
from pathlib import Path

from miniroom.config.json_files import read_json_object, write_json_atomically


def test_a_state_file_is_private_and_replaced_whole(tmp_path: Path) -> None:
    path = tmp_path / "matrix" / "account-miniroom_helper.json"
    write_json_atomically(path, {"access_token": "old"})
    write_json_atomically(path, {"access_token": "new", "device_id": "D"})
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text(encoding="utf-8")) == {"access_token": "new", "device_id": "D"}
    assert [entry.name for entry in path.parent.iterdir()] == [path.name]  # no temporary file left


def test_an_unreadable_state_file_reads_as_empty(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    path.write_text("{torn", encoding="utf-8")
    assert read_json_object(path) == {}
