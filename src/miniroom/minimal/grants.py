"""Grants: each shell command of a response gets a token of its own, scoped to that response (its agent,
requester and conversation). A token stops working when the response and its background jobs have ended,
or 24 hours after the response started; its secret is compared in constant time."""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field

from miniroom.minimal.errors import OperationError, refused
from miniroom.minimal.receipts import Owner

GRANT_LIFETIME_SECONDS = 24 * 60 * 60
REMEMBERED_ENDS = 4096  # forgotten tickets whose end is still explained, rather than called unknown
TOKEN_PREFIX = "mra1"
Clock = Callable[[], float]
GroupCheck = Callable[[int], bool]  # whether a process group still has a running member


@dataclass(eq=False)
class ResponseGrant:
    """One response's grant: who it acts for, when it started, and whether it has ended."""

    response_id: str
    owner: Owner
    started: float
    ended: bool = False
    groups: list[int] = field(default_factory=list)  # the process groups of its shell commands

    def end_reason(self, now: float, group_running: GroupCheck) -> str | None:
        """Why the grant no longer works, or None while it does."""
        if now >= self.started + GRANT_LIFETIME_SECONDS:
            return "it expired 24 hours after its response started"
        if self.ended and not any(group_running(group) for group in self.groups):
            return "its response and the response's background jobs have ended"
        return None


@dataclass(eq=False)
class Ticket:
    """One shell command's token: it may submit calls until its command returned, and read receipts as long
    as its response's grant lasts."""

    ticket_id: str
    secret: bytes
    grant: ResponseGrant
    open: bool = True

    @property
    def token(self) -> str:
        return f"{TOKEN_PREFIX}.{self.ticket_id}.{self.secret.decode()}"


class GrantRegistry:
    """The tickets of every live response, found by the id in a token and checked by its secret."""

    def __init__(self, clock: Clock, group_running: GroupCheck) -> None:
        self.clock, self.group_running = clock, group_running
        self._tickets: dict[str, Ticket] = {}
        self._ended: dict[str, tuple[bytes, str]] = {}  # ticket id -> (secret, why its grant ended)

    def issue(self, grant: ResponseGrant) -> Ticket:
        ticket = Ticket(secrets.token_hex(8), secrets.token_urlsafe(32).encode(), grant)
        self._tickets[ticket.ticket_id] = ticket
        return ticket

    def verify(self, token: str | None) -> Ticket:
        """The ticket `token` names, if its secret matches and its grant still works."""
        if not token:
            raise OperationError(
                401, "M_MISSING_TOKEN", "no grant: run miniroom-agent inside an agent's shell command"
            )
        prefix, _, rest = token.partition(".")
        ticket_id, _, secret = rest.partition(".")
        ticket = self._tickets.get(ticket_id) if prefix == TOKEN_PREFIX else None
        known = ticket.secret if ticket is not None else self._ended.get(ticket_id, (b"", ""))[0]
        # compare_digest takes the same time wherever the first differing byte is.
        if not known or not hmac.compare_digest(secret.encode(), known):
            raise OperationError(
                401, "M_UNKNOWN_TOKEN", "unknown grant: it belongs to no running response of this miniroom"
            )
        reason = self._ended[ticket_id][1] if ticket is None else self._end_reason(ticket.grant)
        if ticket is None or reason:
            raise refused(f"this grant no longer works: {reason}")
        return ticket

    def sweep(self) -> None:
        """Forget the tickets of grants that ended, so the registry does not grow with every response."""
        for grant in {ticket.grant for ticket in self._tickets.values()}:
            self._end_reason(grant)

    def ticket_ids(self) -> set[str]:
        return set(self._tickets)

    def _end_reason(self, grant: ResponseGrant) -> str | None:
        """Why `grant` ended (its tickets are then forgotten, their end remembered), or None."""
        reason = grant.end_reason(self.clock(), self.group_running)
        if reason is not None:
            for ticket_id in [key for key, ticket in self._tickets.items() if ticket.grant is grant]:
                self._ended[ticket_id] = (self._tickets.pop(ticket_id).secret, reason)
            while len(self._ended) > REMEMBERED_ENDS:
                del self._ended[next(iter(self._ended))]
        return reason
