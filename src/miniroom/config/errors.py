"""The one base of every error a person can fix, so that each front end catches them in one place."""

from __future__ import annotations

from collections.abc import Callable


class UserError(Exception):
    """A problem in what a person wrote or chose (a setting, a model name, a session, a command): its message
    says what is wrong, where, and how to fix it, and is shown as it is, without a traceback."""


def cause_of(error: BaseException, matches: Callable[[BaseException], bool]) -> BaseException | None:
    """The first error in `error`'s chain of causes (itself first) that `matches`, or None."""
    cause: BaseException | None = error
    for _ in range(8):  # httpx wraps httpcore's error, which wraps the socket's or the ssl module's
        if cause is None or matches(cause):
            return cause
        cause = cause.__cause__ or cause.__context__
    return None
