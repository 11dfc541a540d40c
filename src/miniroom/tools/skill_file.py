"""A skill as the `load_skill` tool sees it, and how a SKILL.md splits into header and body."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

FENCE = "---"


class SkillFormatError(ValueError):
    """A SKILL.md whose front matter cannot be read; the message says what to fix."""


class SkillRef(Protocol):
    """What the tool needs of a discovered skill (`agent.skills.Skill` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def path(self) -> Path: ...  # the SKILL.md file

    @property
    def root(self) -> Path: ...  # the folder the file must resolve inside


def split_front_matter(text: str) -> tuple[str, str]:
    """The front matter between the leading `---` lines ("" when there is none) and the body after it."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != FENCE:
        return "", text
    for index, line in enumerate(lines[1:], start=1):
        if line.strip() == FENCE:
            return "".join(lines[1:index]), "".join(lines[index + 1 :])
    raise SkillFormatError("its front matter has no closing '---' line; end the header with one")
