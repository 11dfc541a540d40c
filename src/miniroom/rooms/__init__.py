"""Room policy: pure functions over Matrix-shaped events deciding who answers, and where.

No I/O and no Matrix library: the same code runs over a Matrix homeserver and over embedded rooms. Import
from the module that owns a name (`rooms.decide`, `rooms.policy`, ...); this package re-exports nothing.
"""
