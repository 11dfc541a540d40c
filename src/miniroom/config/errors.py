"""The one base of every error a person can fix, so that each front end catches them in one place."""

from __future__ import annotations


class UserError(Exception):
    """A problem in what a person wrote or chose (a setting, a model name, a session, a command): its message
    says what is wrong, where, and how to fix it, and is shown as it is, without a traceback."""
