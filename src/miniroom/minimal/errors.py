"""A refused operation: HTTP status, Matrix-style error code and a message for people."""

from __future__ import annotations


class OperationError(Exception):
    def __init__(self, status: int, errcode: str, message: str) -> None:
        super().__init__(message)
        self.status, self.errcode, self.message = status, errcode, message


def bad_input(message: str) -> OperationError:
    return OperationError(400, "M_BAD_JSON", message)


def not_found(message: str) -> OperationError:
    return OperationError(404, "M_NOT_FOUND", message)


def refused(message: str) -> OperationError:
    return OperationError(403, "M_FORBIDDEN", message)


def conflict(message: str) -> OperationError:
    return OperationError(409, "M_CONFLICT", message)


def too_many(message: str) -> OperationError:
    return OperationError(429, "M_LIMIT_EXCEEDED", message)
