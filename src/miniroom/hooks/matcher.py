"""Which events a hook rule's `matcher` picks, as users know it from Claude Code's hooks (pure).

Nothing, `""` or `"*"` matches everything. Text of only letters, digits, `_`, `-`, spaces, `,` and `|` is a
list of exact names (`bash|write`, `read, grep`); anything else is a regular expression searched anywhere in
the name (`mcp__files__.*`; anchor it with `^...$` for a whole match).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NAME_LIST = re.compile(r"^[A-Za-z0-9_\- ,|]*$")
_SEPARATORS = re.compile(r"[,|]")


@dataclass(frozen=True)
class Matcher:
    """A compiled matcher: everything (`names` and `pattern` None), exact names, or a pattern."""

    names: frozenset[str] | None = None
    pattern: re.Pattern[str] | None = None

    def matches(self, value: str) -> bool:
        if self.names is not None:
            return value in self.names
        if self.pattern is not None:
            return self.pattern.search(value) is not None
        return True


MATCH_ALL = Matcher()


def compile_matcher(text: str | None) -> Matcher:
    """The matcher `text` writes; ValueError saying what is wrong with a pattern that does not compile."""
    if text is None or text.strip() in ("", "*"):
        return MATCH_ALL
    if _NAME_LIST.match(text):
        names = frozenset(name.strip() for name in _SEPARATORS.split(text) if name.strip())
        return Matcher(names=names) if names else MATCH_ALL
    try:
        return Matcher(pattern=re.compile(text))
    except re.error as error:
        raise ValueError(
            f"is not a valid regular expression ({error}): write tool names (`bash|write`) or a valid "
            "pattern (`mcp__files__.*`)"
        ) from None
