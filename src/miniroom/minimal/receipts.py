"""Call receipts, kept in SQLite so that `calls get` still answers after a restart: a call's id, tool,
status (queued, running, waiting, succeeded, failed) and, once it ended, its outcome."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import sqlite3

Status = Literal["queued", "running", "waiting", "succeeded", "failed"]
FINISHED: tuple[Status, ...] = ("succeeded", "failed")
RECEIPTS_FILE = "agent_calls.sqlite3"
INTERRUPTED = (
    "miniroom stopped before this call finished, so its outcome is unknown: check what it was to change "
    "before you call it again"
)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS receipts (
    call_id TEXT PRIMARY KEY,
    agent TEXT NOT NULL,
    requester TEXT NOT NULL,
    conversation TEXT NOT NULL,
    response TEXT NOT NULL,
    tool TEXT NOT NULL,
    -- the tool and arguments as canonical JSON: a submission with the same id must match it to join
    request TEXT NOT NULL,
    status TEXT NOT NULL,
    outcome TEXT,
    submitted REAL NOT NULL,
    finished REAL
);
CREATE INDEX IF NOT EXISTS receipts_by_response ON receipts(response);
"""


@dataclass(frozen=True, slots=True)
class Owner:
    """Whose a call is: a grant reaches only the receipts of its own agent, requester and conversation."""

    agent: str
    requester: str
    conversation: str


@dataclass(frozen=True, slots=True)
class Receipt:
    call_id: str
    tool: str
    status: Status
    submitted: float
    outcome: dict[str, Any] | None = None
    finished: float | None = None

    @property
    def done(self) -> bool:
        return self.status in FINISHED

    def to_json(self) -> dict[str, Any]:
        return {
            "call_id": self.call_id,
            "tool": self.tool,
            "status": self.status,
            "outcome": self.outcome,
            "submitted_at": self.submitted,
            "finished_at": self.finished,
        }


@dataclass(frozen=True, slots=True)
class Stored:
    """A receipt with what the store knows beside it."""

    receipt: Receipt
    owner: Owner
    response: str
    request: str


class ReceiptStore:
    """One SQLite file, opened on first use (a turn that never calls the CLI costs nothing); calls that were
    unfinished when miniroom stopped are marked failed when it opens."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._connection: sqlite3.Connection | None = None

    @property
    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            self._connection = _open(self.path)
        return self._connection

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def add(self, receipt: Receipt, owner: Owner, response: str, request: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO receipts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    receipt.call_id,
                    owner.agent,
                    owner.requester,
                    owner.conversation,
                    response,
                    receipt.tool,
                    request,
                    receipt.status,
                    _json(receipt.outcome),
                    receipt.submitted,
                    receipt.finished,
                ),
            )

    def update(self, receipt: Receipt) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE receipts SET status = ?, outcome = ?, finished = ? WHERE call_id = ?",
                (receipt.status, _json(receipt.outcome), receipt.finished, receipt.call_id),
            )

    def get(self, call_id: str) -> Stored | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM receipts WHERE call_id = ?", (call_id,)).fetchone()
        return None if row is None else _stored(row)

    def count(self, response: str) -> int:
        with self._lock:
            row = self._db.execute("SELECT COUNT(*) FROM receipts WHERE response = ?", (response,)).fetchone()
        return int(row[0])


def _open(path: Path) -> sqlite3.Connection:
    import sqlite3  # here, so a turn that never calls the CLI does not pay for the import

    path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=10)
    connection.row_factory = sqlite3.Row
    connection.execute("PRAGMA journal_mode=WAL")
    # WAL with synchronous=NORMAL survives a process crash; only a power loss can drop the last commits.
    connection.execute("PRAGMA synchronous=NORMAL")
    connection.executescript(_SCHEMA)
    outcome = json.dumps({"is_error": True, "text": INTERRUPTED})
    connection.execute(
        "UPDATE receipts SET status = 'failed', outcome = ? WHERE status NOT IN ('succeeded', 'failed')",
        (outcome,),
    )
    return connection


def _json(value: dict[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _stored(row: sqlite3.Row) -> Stored:
    receipt = Receipt(
        row["call_id"],
        row["tool"],
        row["status"],
        row["submitted"],
        json.loads(row["outcome"]) if row["outcome"] is not None else None,
        row["finished"],
    )
    owner = Owner(row["agent"], row["requester"], row["conversation"])
    return Stored(receipt, owner, row["response"], row["request"])
