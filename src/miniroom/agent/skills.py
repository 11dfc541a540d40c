"""Skills: folders holding a SKILL.md with YAML front matter, listed in the prompt and loaded on demand.

A skill that cannot be used (unreadable, bad front matter, no description) is skipped and a warning is logged
on this module's logger, naming the file and the fix.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from miniroom.agent.context_files import warn_once_about_link
from miniroom.engine import ToolError
from miniroom.tools import OutsideError, SkillFormatError, read_file_inside, split_front_matter

logger = logging.getLogger(__name__)

SKILL_FILE = "SKILL.md"
LOAD_SKILL_HINT = "Start by loading the relevant skill with load_skill when a task matches one."


@dataclass(frozen=True)
class Skill:
    name: str
    description: str
    path: Path  # the SKILL.md file; its folder is the base for the skill's relative file references
    root: Path  # what the file must stay inside: the project for its skills, the agent folder for global ones

    @property
    def folder(self) -> Path:
        return self.path.parent


def discover_skills(cwd: Path, agent_dir: Path) -> list[Skill]:
    """Project (`cwd/.claude/skills/*/SKILL.md`) and global (`agent_dir/skills/*/SKILL.md`) skills, by name.

    A project skill shadows a global one of the same name.
    """
    found: dict[str, Skill] = {}
    for root, allowed in ((cwd / ".claude" / "skills", cwd), (agent_dir / "skills", agent_dir)):
        for skill in _skills_in(root, allowed):
            if skill.name not in found:
                found[skill.name] = skill
    return sorted(found.values(), key=lambda skill: skill.name)


def render_skill_list(skills: Sequence[Skill], load_skill_enabled: bool) -> str:
    """The compact prompt section listing the skills; empty when there are none."""
    if not skills:
        return ""
    lines = ["Skills available:", *(f"- {skill.name}: {skill.description}" for skill in skills)]
    if load_skill_enabled:
        lines.append(LOAD_SKILL_HINT)
    return "\n".join(lines)


def _parse_front_matter(header: str) -> dict[str, Any]:
    import yaml  # only a project with skills pays for the YAML library

    try:
        data = yaml.safe_load(header)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        raise SkillFormatError(f"its front matter is not valid YAML{where}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SkillFormatError("its front matter must be 'key: value' lines (name, description)")
    return data


def _skills_in(root: Path, allowed: Path) -> list[Skill]:
    """The usable skills directly under `root`, in folder-name order; duplicates within `root` warn."""
    skills: dict[str, Skill] = {}
    for path in sorted(root.glob(f"*/{SKILL_FILE}")):
        skill = _read_skill(path, allowed)
        if skill is None:
            continue
        if skill.name in skills:
            logger.warning(
                "Skipped skill %s: the name '%s' is already used by %s. Give one of them another name.",
                path,
                skill.name,
                skills[skill.name].path,
            )
            continue
        skills[skill.name] = skill
    return list(skills.values())


def _read_skill(path: Path, allowed: Path) -> Skill | None:
    try:
        header, _ = split_front_matter(read_file_inside(allowed, path).decode("utf-8"))
        return _skill_from(path, allowed, _parse_front_matter(header))
    except OutsideError as outside:
        warn_once_about_link(logger, path, outside, "skill")
        return None
    except OSError as error:
        reason = f"cannot read it ({error.strerror}); fix its permissions"
    except ToolError as error:
        reason = str(error).rstrip(".")
    except UnicodeDecodeError:
        reason = "it is not UTF-8 text; save it as UTF-8"
    except SkillFormatError as error:
        reason = str(error)
    logger.warning("Skipped skill %s: %s.", path, reason)
    return None


def _skill_from(path: Path, root: Path, front_matter: dict[str, Any]) -> Skill:
    name = _text_field(front_matter, "name") or path.parent.name
    description = _text_field(front_matter, "description")
    if not description:
        raise SkillFormatError(
            "it has no description; add a 'description:' line to its front matter "
            "(between '---' lines) saying when to use the skill"
        )
    return Skill(name, description, path, root)


def _text_field(front_matter: dict[str, Any], key: str) -> str:
    """A front-matter value as one line of text: YAML may spread it over several lines, or read a number."""
    value = front_matter.get(key)
    if value is None:
        return ""
    if isinstance(value, dict | list):
        raise SkillFormatError(f"its '{key}' must be plain text, not a YAML list or mapping")
    return " ".join(str(value).split())
