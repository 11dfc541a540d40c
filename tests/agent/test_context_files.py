"""Context files: which CLAUDE.md / AGENTS.md files load, in what order, and what a bad file does."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from miniroom.agent.context_files import CONTEXT_INTRO, ContextFile, load_context_files, render_context


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """home/ (CLAUDE.md) > proj/ (CLAUDE.md, AGENTS.md) > pkg/ (AGENTS.md) > deep/; a global CLAUDE.md."""
    write(tmp_path / "mini" / "CLAUDE.md", "global rules")
    write(tmp_path / "home" / "CLAUDE.md", "home rules")
    write(tmp_path / "home" / "proj" / "CLAUDE.md", "proj claude")
    write(tmp_path / "home" / "proj" / "AGENTS.md", "proj agents")
    write(tmp_path / "home" / "proj" / "pkg" / "AGENTS.md", "pkg agents")
    (tmp_path / "home" / "proj" / "pkg" / "deep").mkdir()
    return tmp_path


def load(tree: Path, **flags: bool) -> list[str]:
    cwd = tree / "home" / "proj" / "pkg" / "deep"
    files = load_context_files(cwd, tree / "mini", home=tree / "home", **flags)
    return [file.text for file in files]


def test_global_first_then_home_down_to_cwd_with_claude_md_winning(tree: Path) -> None:
    assert load(tree) == ["global rules", "home rules", "proj claude", "pkg agents"]


def test_paths_are_the_files_read(tree: Path) -> None:
    cwd = tree / "home" / "proj"
    files = load_context_files(cwd, tree / "mini", home=tree / "home")
    assert [file.path for file in files] == [
        tree / "mini" / "CLAUDE.md",
        (tree / "home" / "CLAUDE.md").resolve(),
        (tree / "home" / "proj" / "CLAUDE.md").resolve(),
    ]


def test_claude_md_off_falls_back_to_agents_md_and_drops_the_global_file(tree: Path) -> None:
    assert load(tree, load_claude_md=False) == ["proj agents", "pkg agents"]


def test_agents_md_off_drops_agents_md_only(tree: Path) -> None:
    assert load(tree, load_agents_md=False) == ["global rules", "home rules", "proj claude"]


def test_both_off_loads_nothing(tree: Path) -> None:
    assert load(tree, load_claude_md=False, load_agents_md=False) == []


def test_walk_stops_at_home_when_cwd_is_inside_it(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "above home")
    write(tmp_path / "home" / "proj" / "CLAUDE.md", "proj")
    files = load_context_files(tmp_path / "home" / "proj", tmp_path / "mini", home=tmp_path / "home")
    assert [file.text for file in files] == ["proj"]


def test_walk_goes_up_to_the_root_when_cwd_is_outside_home(tmp_path: Path) -> None:
    above = write(tmp_path / "CLAUDE.md", "above the project")
    inner = write(tmp_path / "work" / "proj" / "AGENTS.md", "project")
    files = load_context_files(tmp_path / "work" / "proj", tmp_path / "mini", home=tmp_path / "elsewhere")
    paths = [file.path for file in files]
    # Folders above tmp_path may hold files of their own; ours must be there, outermost first.
    assert above.resolve() in paths
    assert paths.index(above.resolve()) < paths.index(inner.resolve())


def test_agent_dir_inside_the_project_is_not_loaded_twice(tmp_path: Path) -> None:
    write(tmp_path / "proj" / "CLAUDE.md", "once")
    files = load_context_files(tmp_path / "proj", tmp_path / "proj", home=tmp_path)
    assert [file.text for file in files] == ["once"]


def test_empty_files_are_left_out(tmp_path: Path) -> None:
    write(tmp_path / "proj" / "CLAUDE.md", "  \n\n")
    assert load_context_files(tmp_path / "proj", tmp_path / "mini", home=tmp_path) == []


def test_a_non_utf8_file_is_skipped_with_a_warning(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    bad = tmp_path / "proj" / "CLAUDE.md"
    bad.parent.mkdir()
    bad.write_bytes(b"caf\xe9 rules")
    write(tmp_path / "CLAUDE.md", "still loaded")
    with caplog.at_level(logging.WARNING, logger="miniroom.agent.context_files"):
        files = load_context_files(tmp_path / "proj", tmp_path / "mini", home=tmp_path)
    assert [file.text for file in files] == ["still loaded"]
    assert f"Skipped context file {bad.resolve()}: it is not UTF-8 text (bad byte at offset 3)" in caplog.text
    assert "Save it as UTF-8." in caplog.text


def test_an_unreadable_global_file_is_skipped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "mini" / "CLAUDE.md").mkdir(parents=True)  # a folder in the file's place: reading fails
    write(tmp_path / "proj" / "CLAUDE.md", "project")
    with caplog.at_level(logging.WARNING, logger="miniroom.agent.context_files"):
        files = load_context_files(tmp_path / "proj", tmp_path / "mini", home=tmp_path)
    assert [file.text for file in files] == ["project"]
    assert (
        f"Skipped context file {tmp_path / 'mini' / 'CLAUDE.md'}: cannot read it (Is a directory)"
        in caplog.text
    )


def test_render_context_introduces_the_files_and_heads_each_with_its_path(tmp_path: Path) -> None:
    first, second = tmp_path / "CLAUDE.md", tmp_path / "a" / "AGENTS.md"
    rendered = render_context([ContextFile(first, "use tabs"), ContextFile(second, "no mocks")])
    assert rendered == f"{CONTEXT_INTRO}\n\n## {first}\n\nuse tabs\n\n## {second}\n\nno mocks"
    assert "follow them" in CONTEXT_INTRO


def test_render_context_of_no_files_is_empty() -> None:
    assert render_context([]) == ""


def test_a_context_file_linking_outside_its_folder_is_skipped_and_named_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    key = write(tmp_path / "home" / ".ssh" / "id_rsa", "-----BEGIN PRIVATE KEY-----")
    project = tmp_path / "home" / "clone"
    project.mkdir()
    (project / "CLAUDE.md").symlink_to(key)
    with caplog.at_level(logging.WARNING, logger="miniroom.agent.context_files"):
        for _ in range(2):  # a server builds the prompt for every turn; the warning comes once
            assert load_context_files(project, tmp_path / "mini", home=tmp_path / "home") == []
    assert caplog.messages == [
        f"Skipped context file {project / 'CLAUDE.md'}: it leads to {key.resolve()}, outside "
        f"{project.resolve()}, and files that lead out of their folder are never sent to the model. Put the "
        "file itself there instead of a link."
    ]


def test_a_global_claude_md_linking_outside_the_agent_folder_is_skipped(tmp_path: Path) -> None:
    secret = write(tmp_path / "secret.txt", "global secret")
    (tmp_path / "mini").mkdir()
    (tmp_path / "mini" / "CLAUDE.md").symlink_to(secret)
    write(tmp_path / "proj" / "AGENTS.md", "project")
    assert load_from(tmp_path, tmp_path / "proj") == ["project"]


def test_a_link_that_stays_in_its_folder_is_loaded(tmp_path: Path) -> None:
    write(tmp_path / "proj" / "docs" / "agents.md", "linked rules")
    (tmp_path / "proj" / "CLAUDE.md").symlink_to(Path("docs") / "agents.md")
    assert load_from(tmp_path, tmp_path / "proj") == ["linked rules"]


def load_from(tmp_path: Path, cwd: Path) -> list[str]:
    return [file.text for file in load_context_files(cwd, tmp_path / "mini", home=tmp_path)]
