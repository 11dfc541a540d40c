"""Skill discovery: where skills come from, which win, which are skipped and why; the prompt list."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from miniroom.agent.skills import LOAD_SKILL_HINT, Skill, discover_skills, render_skill_list


def add_skill(root: Path, folder: str, text: str) -> Path:
    path = root / folder / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def front(name: str | None, description: str | None, body: str = "Body.\n") -> str:
    lines = [f"name: {name}"] if name is not None else []
    lines += [f"description: {description}"] if description is not None else []
    return "---\n" + "".join(line + "\n" for line in lines) + "---\n" + body


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    """(cwd, agent_dir), both empty."""
    return tmp_path / "proj", tmp_path / "mini"


def project_root(cwd: Path) -> Path:
    return cwd / ".claude" / "skills"


def discover_logged(dirs: tuple[Path, Path], caplog: pytest.LogCaptureFixture) -> tuple[list[Skill], str]:
    with caplog.at_level(logging.WARNING, logger="miniroom.agent.skills"):
        skills = discover_skills(*dirs)
    return skills, caplog.text


def test_project_and_global_skills_are_found_sorted_by_name(dirs: tuple[Path, Path]) -> None:
    cwd, agent_dir = dirs
    pdf = add_skill(project_root(cwd), "pdf", front("pdf", "Fill PDF forms"))
    deploy = add_skill(agent_dir / "skills", "ship", front("deploy", "Deploy the app"))
    assert discover_skills(cwd, agent_dir) == [
        Skill("deploy", "Deploy the app", deploy, agent_dir),
        Skill("pdf", "Fill PDF forms", pdf, cwd),
    ]


def test_a_project_skill_shadows_a_global_one_of_the_same_name(dirs: tuple[Path, Path]) -> None:
    cwd, agent_dir = dirs
    add_skill(agent_dir / "skills", "review", front("review", "global review"))
    mine = add_skill(project_root(cwd), "my-review", front("review", "project review"))
    assert discover_skills(cwd, agent_dir) == [Skill("review", "project review", mine, cwd)]


def test_missing_name_falls_back_to_the_folder_name(dirs: tuple[Path, Path]) -> None:
    cwd, agent_dir = dirs
    add_skill(project_root(cwd), "lint-fixer", front(None, "Fix lint errors"))
    assert [skill.name for skill in discover_skills(cwd, agent_dir)] == ["lint-fixer"]


def test_a_multi_line_description_becomes_one_line(dirs: tuple[Path, Path]) -> None:
    cwd, agent_dir = dirs
    add_skill(project_root(cwd), "x", "---\nname: x\ndescription: >\n  Use when\n  deploying.\n---\nBody\n")
    assert discover_skills(cwd, agent_dir)[0].description == "Use when deploying."


def test_skill_folder_is_the_skill_md_parent(dirs: tuple[Path, Path]) -> None:
    cwd, agent_dir = dirs
    path = add_skill(project_root(cwd), "x", front("x", "d"))
    assert discover_skills(cwd, agent_dir)[0].folder == path.parent


def test_no_skill_folders_means_no_skills(dirs: tuple[Path, Path]) -> None:
    assert discover_skills(*dirs) == []


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("# Just a body\n", "it has no description; add a 'description:' line to its front matter"),
        (front("x", None), "it has no description; add a 'description:' line"),
        ("---\nname: x\ndescription: [unclosed\n---\n", "its front matter is not valid YAML at line 4"),
        (
            "---\nname: x\ndescription: d\n",
            "its front matter has no closing '---' line; end the header with one",
        ),
        ("---\n- a list\n---\n", "its front matter must be 'key: value' lines (name, description)"),
        ("---\nname: x\ndescription:\n  - a\n---\n", "its 'description' must be plain text, not a YAML list"),
    ],
    ids=["no-front-matter", "no-description", "bad-yaml", "unclosed", "not-a-mapping", "list-description"],
)
def test_an_unusable_skill_is_skipped_with_a_warning_saying_why(
    dirs: tuple[Path, Path], caplog: pytest.LogCaptureFixture, text: str, reason: str
) -> None:
    cwd, _ = dirs
    bad = add_skill(project_root(cwd), "bad", text)
    add_skill(project_root(cwd), "good", front("good", "works"))
    skills, log = discover_logged(dirs, caplog)
    assert [skill.name for skill in skills] == ["good"]
    assert f"Skipped skill {bad}: {reason}" in log


def test_a_non_utf8_skill_is_skipped_with_a_warning(
    dirs: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    cwd, _ = dirs
    bad = add_skill(project_root(cwd), "bad", "")
    bad.write_bytes(b"---\nname: bad\ndescription: caf\xe9\n---\n")
    skills, log = discover_logged(dirs, caplog)
    assert skills == []
    assert f"Skipped skill {bad}: it is not UTF-8 text; save it as UTF-8." in log


def test_an_unreadable_skill_is_skipped_with_a_warning(
    dirs: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    cwd, _ = dirs
    bad = project_root(cwd) / "odd" / "SKILL.md"
    bad.mkdir(parents=True)  # a folder named SKILL.md: reading it fails
    skills, log = discover_logged(dirs, caplog)
    assert skills == []
    assert f"Skipped skill {bad}: cannot read it (Is a directory); fix its permissions." in log


def test_two_skills_with_one_name_in_one_place_keep_the_first_and_warn(
    dirs: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    cwd, _ = dirs
    first = add_skill(project_root(cwd), "a", front("same", "first"))
    second = add_skill(project_root(cwd), "b", front("same", "second"))
    skills, log = discover_logged(dirs, caplog)
    assert skills == [Skill("same", "first", first, cwd)]
    assert f"Skipped skill {second}: the name 'same' is already used by {first}." in log


def test_render_skill_list_with_load_skill_enabled(tmp_path: Path) -> None:
    skills = [
        Skill("deploy", "Deploy the app", tmp_path, tmp_path),
        Skill("pdf", "Fill PDF forms", tmp_path, tmp_path),
    ]
    assert render_skill_list(skills, load_skill_enabled=True) == (
        "Skills available:\n- deploy: Deploy the app\n- pdf: Fill PDF forms\n"
        "Start by loading the relevant skill with load_skill when a task matches one."
    )


def test_render_skill_list_drops_the_load_line_when_load_skill_is_disabled(tmp_path: Path) -> None:
    rendered = render_skill_list(
        [Skill("pdf", "Fill PDF forms", tmp_path, tmp_path)], load_skill_enabled=False
    )
    assert rendered == "Skills available:\n- pdf: Fill PDF forms"
    assert "load_skill" not in rendered
    assert LOAD_SKILL_HINT.startswith("Start by loading the relevant skill")


def test_render_skill_list_of_no_skills_is_empty() -> None:
    assert render_skill_list([], load_skill_enabled=True) == ""


def test_a_skill_linking_outside_the_project_is_skipped_and_named(
    dirs: tuple[Path, Path], caplog: pytest.LogCaptureFixture
) -> None:
    cwd, _ = dirs
    key = cwd.parent / "id_rsa"
    key.write_text("---\nname: key\ndescription: -----BEGIN PRIVATE KEY-----\n---\n")
    (project_root(cwd) / "key").mkdir(parents=True)
    (project_root(cwd) / "key" / "SKILL.md").symlink_to(key)
    shared = add_skill(cwd.parent, "shared-skill", front("shared", "Shared"))
    (project_root(cwd) / "shared").symlink_to(shared.parent)  # a whole skill folder linked out
    add_skill(project_root(cwd), "good", front("good", "works"))
    skills, log = discover_logged(dirs, caplog)
    assert [skill.name for skill in skills] == ["good"]
    assert (
        f"Skipped skill {project_root(cwd) / 'key' / 'SKILL.md'}: it leads to {key.resolve()}, outside" in log
    )
    assert "PRIVATE KEY" not in log


def test_a_global_skill_linking_outside_the_agent_folder_is_skipped(dirs: tuple[Path, Path]) -> None:
    cwd, agent_dir = dirs
    elsewhere = add_skill(cwd.parent / "elsewhere", "x", front("x", "outside"))
    (agent_dir / "skills" / "x").mkdir(parents=True)
    (agent_dir / "skills" / "x" / "SKILL.md").symlink_to(elsewhere)
    assert discover_skills(cwd, agent_dir) == []


def test_a_skill_linking_inside_the_project_is_found(dirs: tuple[Path, Path]) -> None:
    cwd, agent_dir = dirs
    real = add_skill(cwd / "docs", "pdf", front("pdf", "Fill PDF forms"))
    (project_root(cwd) / "pdf").mkdir(parents=True)
    (project_root(cwd) / "pdf" / "SKILL.md").symlink_to(real)
    assert [skill.name for skill in discover_skills(cwd, agent_dir)] == ["pdf"]
