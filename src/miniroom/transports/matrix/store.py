"""What the Matrix transport keeps under `<data_dir>/matrix/`: account credentials and the sync position."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from miniroom.config.json_files import write_json_atomically


@dataclass(frozen=True)
class Credentials:
    """An account's session. `password` is kept only when miniroom generated it while registering."""

    homeserver: str
    user_id: str
    device_id: str
    access_token: str
    password: str | None = None


@dataclass(frozen=True)
class SyncPosition:
    """Where the event feed resumes: a sync token plus the events of its batch already handed over."""

    user_id: str
    next_batch: str
    delivered: list[str] = field(default_factory=list)


class MatrixStore:
    """Private JSON files (mode 0600, folder 0700), each replaced atomically."""

    def __init__(self, data_dir: Path) -> None:
        self.folder = data_dir / "matrix"

    def credentials(self, localpart: str) -> Credentials | None:
        data = self._read(f"account-{localpart}.json")
        return Credentials(**data) if data is not None else None

    def save_credentials(self, localpart: str, credentials: Credentials) -> None:
        self._write(f"account-{localpart}.json", asdict(credentials))

    def sync_position(self) -> SyncPosition | None:
        data = self._read("sync.json")
        return SyncPosition(**data) if data is not None else None

    def save_sync_position(self, position: SyncPosition) -> None:
        self._write("sync.json", asdict(position))

    def _read(self, name: str) -> dict[str, Any] | None:
        path = self.folder / name
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise OSError(f"{path}: unreadable ({exc}); delete it and miniroom will sign in again") from None
        return data if isinstance(data, dict) else None

    def _write(self, name: str, data: dict[str, Any]) -> None:
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        write_json_atomically(self.folder / name, data)  # mode 0600, as every file it writes
