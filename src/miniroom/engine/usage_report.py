"""Tokens and cost by agent, model and day, from the assistant messages sessions hold: every request,
failed attempts included (they are stored as messages whose stop reason is `error`). Pure."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from miniroom.llm import Usage, usage_from_dict

DIMENSIONS = ("agent", "model", "day")


@dataclass
class Tally:
    """The requests of one group and what they used."""

    requests: int = 0
    failed: int = 0
    usage: Usage = field(default_factory=Usage)

    def add(self, usage: Usage, failed: bool) -> None:
        self.requests += 1
        self.failed += int(failed)
        self.usage.add(usage)

    def to_json(self) -> dict[str, Any]:
        usage = self.usage
        return {
            "requests": self.requests,
            "failed": self.failed,
            "input": usage.input,
            "output": usage.output,
            "cache_read": usage.cache_read,
            "cache_write": usage.cache_write,
            "cost": round(usage.cost, 6),
        }


def tally_usage(messages: Iterable[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """`messages`: (agent, a stored assistant message). Totals, and a list of groups per dimension, each
    group named by its value (`{"agent": "helper", "requests": ..., "cost": ...}`), largest cost first."""
    total = Tally()
    groups: dict[str, dict[str, Tally]] = {dimension: {} for dimension in DIMENSIONS}
    for agent, message in messages:
        usage = usage_from_dict(message.get("usage") or {})
        failed = message.get("stopReason") == "error"
        total.add(usage, failed)
        for dimension, value in zip(DIMENSIONS, (agent, _model(message), _day(message)), strict=True):
            groups[dimension].setdefault(value, Tally()).add(usage, failed)
    return {
        "total": total.to_json(),
        **{
            f"by_{dimension}": [
                {dimension: value, **tally.to_json()}
                for value, tally in sorted(found.items(), key=lambda item: _order(dimension, item))
            ]
            for dimension, found in groups.items()
        },
    }


def _order(dimension: str, item: tuple[str, Tally]) -> tuple[float, str]:
    value, tally = item
    if dimension == "day":  # days in the calendar's order, newest first
        return (-float(value.replace("-", "") or 0), value)
    return (-tally.usage.cost, value)


def _model(message: dict[str, Any]) -> str:
    provider, model = str(message.get("provider") or ""), str(message.get("model") or "")
    return f"{provider}/{model}" if provider else model or "unknown"


def _day(message: dict[str, Any]) -> str:
    """The local day of the request; a stored time in milliseconds (as Pi writes it) is read as such."""
    stamp = message.get("timestamp")
    if not isinstance(stamp, int | float) or isinstance(stamp, bool):
        return "unknown"
    seconds = stamp / 1000 if stamp > 1e11 else stamp
    return datetime.fromtimestamp(seconds).date().isoformat()


def assistant_messages(entries: Iterable[dict[str, Any]], seen: set[str]) -> Iterable[dict[str, Any]]:
    """The assistant messages of a session's entries not `seen` (by entry id) in an earlier file: a session
    recreated with new settings copies its history, which was counted where it was first written."""
    for entry in entries:
        message = entry.get("message") if entry.get("type") == "message" else None
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        key = f"{entry.get('id')}@{entry.get('timestamp')}"
        if key not in seen:
            seen.add(key)
            yield message
