"""The `load_skill` tool: a skill's SKILL.md, whole.

No output cap applies here: capping the very call that pulls a skill into the context would defeat it.
Discovery lives in `agent.skills` (a lower layer); this tool takes any object with a `name` and a `path`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from pydantic import Field

from miniroom.engine import ToolContext, ToolError, ToolResult
from miniroom.tools.base import BuiltinTool, Params
from miniroom.tools.paths import OutsideError, read_file_inside
from miniroom.tools.skill_file import SkillFormatError, SkillRef, split_front_matter


class LoadSkillParams(Params):
    name: str = Field(description="Skill name from the skills list")


class LoadSkillTool(BuiltinTool[LoadSkillParams]):
    name = "load_skill"
    description = "Load a skill's full instructions by name."
    params_model = LoadSkillParams

    def __init__(self, skills: Sequence[SkillRef]) -> None:
        self._skills = {skill.name: skill for skill in skills}

    async def run(self, params: LoadSkillParams, ctx: ToolContext) -> ToolResult:
        skill = self._find(params.name)
        body = await asyncio.to_thread(_read_body, skill)
        header = f"Skill '{skill.name}'. Its folder, for the relative paths below: {skill.path.parent}"
        return ToolResult.text(f"{header}\n\n{body}", skill=skill.name, path=str(skill.path))

    def summary(self, arguments: dict[str, Any]) -> str:
        return f"Skill {arguments.get('name', '?')}"

    def _find(self, name: str) -> SkillRef:
        skill = self._skills.get(name.strip())
        if skill is not None:
            return skill
        available = ", ".join(sorted(self._skills)) or "none (no skills were found)"
        raise ToolError(f"Unknown skill '{name}'. Available skills: {available}.")


def _read_body(skill: SkillRef) -> str:
    """The SKILL.md read afresh at call time, without its front matter."""
    try:
        _, body = split_front_matter(read_file_inside(skill.root, skill.path).decode("utf-8"))
    except OutsideError as outside:
        raise ToolError(
            f"Skill '{skill.name}' at {skill.path} now leads to {outside.resolved}, outside {skill.root}, "
            "so it was not loaded."
        ) from None
    except OSError as error:
        raise ToolError(f"Cannot read skill '{skill.name}' at {skill.path}: {error.strerror}.") from None
    except UnicodeDecodeError:
        raise ToolError(
            f"Skill '{skill.name}' at {skill.path} is not UTF-8 text; save it as UTF-8."
        ) from None
    except SkillFormatError as error:
        raise ToolError(f"Skill '{skill.name}' at {skill.path} cannot be loaded: {error}.") from None
    return body.strip()
