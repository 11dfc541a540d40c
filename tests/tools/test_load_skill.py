"""load_skill: a discovered skill's SKILL.md comes back whole, without its front matter."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.agent.skills import Skill, discover_skills
from miniroom.engine.tool import ToolContext, ToolError
from miniroom.llm.messages import TextContent
from miniroom.tools.load_skill import LoadSkillTool
from miniroom.tools.output import MAX_OUTPUT_BYTES


def add_skill(root: Path, name: str, body: str) -> Path:
    path = root / name / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\nname: {name}\ndescription: The {name} skill\n---\n{body}", encoding="utf-8")
    return path


async def call(tool: LoadSkillTool, cwd: Path, **arguments: object) -> str:
    params = tool.validate(dict(arguments))
    result = await tool.execute(params, ToolContext(cwd=cwd))
    assert not result.is_error
    return "".join(part.text for part in result.content if isinstance(part, TextContent))


@pytest.fixture
def skills_root(tmp_path: Path) -> Path:
    return tmp_path / ".claude" / "skills"


async def test_returns_the_body_without_front_matter_and_names_the_folder(
    tmp_path: Path, skills_root: Path
) -> None:
    path = add_skill(skills_root, "pdf", "# PDF\n\nRun scripts/fill.py on the form.\n")
    tool = LoadSkillTool(discover_skills(tmp_path, tmp_path / "mini"))
    text = await call(tool, tmp_path, name="pdf")
    assert text == (
        f"Skill 'pdf'. Its folder, for the relative paths below: {path.parent}\n\n"
        "# PDF\n\nRun scripts/fill.py on the form."
    )


async def test_a_200_kb_skill_comes_back_whole(tmp_path: Path, skills_root: Path) -> None:
    body = "".join(f"step {index}: do the thing carefully\n" for index in range(7000)) + "THE END"
    assert len(body.encode()) > 200_000 > MAX_OUTPUT_BYTES
    add_skill(skills_root, "big", body)
    tool = LoadSkillTool(discover_skills(tmp_path, tmp_path / "mini"))
    text = await call(tool, tmp_path, name="big")
    assert text.endswith("\n\n" + body)


async def test_the_file_is_read_at_call_time(tmp_path: Path, skills_root: Path) -> None:
    path = add_skill(skills_root, "fresh", "old text")
    tool = LoadSkillTool(discover_skills(tmp_path, tmp_path / "mini"))
    path.write_text("---\nname: fresh\ndescription: d\n---\nnew text", encoding="utf-8")
    assert (await call(tool, tmp_path, name="fresh")).endswith("\n\nnew text")


async def test_an_unknown_skill_names_the_available_ones(tmp_path: Path, skills_root: Path) -> None:
    add_skill(skills_root, "pdf", "x")
    add_skill(skills_root, "deploy", "y")
    tool = LoadSkillTool(discover_skills(tmp_path, tmp_path / "mini"))
    params = tool.validate({"name": "pfd"})
    with pytest.raises(ToolError) as error:
        await tool.execute(params, ToolContext(cwd=tmp_path))
    assert str(error.value) == "Unknown skill 'pfd'. Available skills: deploy, pdf."


async def test_an_unknown_skill_with_no_skills_at_all_says_so(tmp_path: Path) -> None:
    tool = LoadSkillTool([])
    with pytest.raises(
        ToolError, match=r"^Unknown skill 'pdf'\. Available skills: none \(no skills were found\)\.$"
    ):
        await tool.execute(tool.validate({"name": "pdf"}), ToolContext(cwd=tmp_path))


async def test_a_skill_deleted_after_discovery_says_it_cannot_be_read(
    tmp_path: Path, skills_root: Path
) -> None:
    path = add_skill(skills_root, "gone", "x")
    tool = LoadSkillTool(discover_skills(tmp_path, tmp_path / "mini"))
    path.unlink()
    with pytest.raises(ToolError) as error:
        await tool.execute(tool.validate({"name": "gone"}), ToolContext(cwd=tmp_path))
    assert str(error.value) == f"Cannot read skill 'gone' at {path}: No such file or directory."


async def test_a_skill_broken_after_discovery_says_what_to_fix(tmp_path: Path, skills_root: Path) -> None:
    path = add_skill(skills_root, "broken", "x")
    tool = LoadSkillTool(discover_skills(tmp_path, tmp_path / "mini"))
    path.write_text("---\nname: broken\n", encoding="utf-8")
    with pytest.raises(ToolError) as error:
        await tool.execute(tool.validate({"name": "broken"}), ToolContext(cwd=tmp_path))
    assert str(error.value) == (
        f"Skill 'broken' at {path} cannot be loaded: its front matter has no closing '---' line; "
        "end the header with one."
    )


async def test_a_non_utf8_skill_says_to_save_it_as_utf8(tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    path.write_bytes(b"caf\xe9")
    tool = LoadSkillTool([Skill("latin", "d", path, tmp_path)])
    with pytest.raises(ToolError, match=r"is not UTF-8 text; save it as UTF-8\.$"):
        await tool.execute(tool.validate({"name": "latin"}), ToolContext(cwd=tmp_path))


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "Invalid arguments for load_skill: name: Field required"),
        ({"name": 3}, "Invalid arguments for load_skill: name: Input should be a valid string"),
        (
            {"name": "x", "extra": 1},
            "Invalid arguments for load_skill: extra: Extra inputs are not permitted",
        ),
    ],
)
def test_bad_arguments_name_the_field(arguments: dict[str, object], message: str) -> None:
    with pytest.raises(ToolError) as error:
        LoadSkillTool([]).validate(arguments)
    assert str(error.value) == message


def test_summary_and_spec() -> None:
    tool = LoadSkillTool([])
    assert tool.summary({"name": "pdf"}) == "Skill pdf"
    assert tool.spec.name == "load_skill"
    assert tool.spec.parameters["required"] == ["name"]


async def test_a_skill_swapped_for_a_link_outside_is_not_loaded(tmp_path: Path, skills_root: Path) -> None:
    path = add_skill(skills_root, "pdf", "fine")
    tool = LoadSkillTool(discover_skills(tmp_path, tmp_path / "mini"))
    secret = tmp_path.parent / f"{tmp_path.name}-secret.md"
    secret.write_text("---\nname: pdf\ndescription: d\n---\nTOP SECRET")
    path.unlink()
    path.symlink_to(secret)
    with pytest.raises(ToolError, match=rf"Skill 'pdf' at {path} now leads to {secret}, outside {tmp_path}"):
        await tool.execute(tool.validate({"name": "pdf"}), ToolContext(cwd=tmp_path))
