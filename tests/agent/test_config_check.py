"""`config check` over a project's `.miniroom/` folder: every file present, each problem as file:line: key."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.agent.config_check import VALIDATORS, check_file, check_project
from miniroom.agent.config_yaml_check import check_config_file
from miniroom.config.problems import Problem


def write(project: Path, name: str, text: str) -> Path:
    path = project / ".miniroom" / name
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_project_without_settings_files_has_no_problems(tmp_path: Path) -> None:
    assert check_project(tmp_path) == []
    (tmp_path / ".miniroom").mkdir()
    assert check_project(tmp_path) == []


def test_valid_files_have_no_problems(tmp_path: Path) -> None:
    write(
        tmp_path, "miniagent.yml", "profiles:\n  safe:\n    disabledTools: [bash]\n    toolCallTimeout: 60\n"
    )
    write(tmp_path, "retry.yml", "retryIntervalSeconds: 30\nmaxAttempts: 5\n")
    assert check_project(tmp_path) == []


def test_every_problem_of_every_file_in_line_order(tmp_path: Path) -> None:
    profiles = write(
        tmp_path,
        "miniagent.yml",
        """\
profiles:
  safe:
    disabledTools: []
    toolCallTimeout: -5
  draft:
    enabledTools: [read]
    disabledTools: [bash]
  safe:
    toolCallTimeout: -5
""",
    )
    retry = write(tmp_path, "retry.yml", "maxAttempts: 0\nbackoff: 2\n")
    assert [(problem.severity, str(problem)) for problem in check_project(tmp_path)] == [
        ("error", f"{profiles}:5: profiles.draft: sets both enabledTools and disabledTools: keep one, the "
                  "allowlist (enabledTools) or the denylist (disabledTools)"),
        ("error", f"{profiles}:8: profiles.safe: is written twice (lines 2 and 8); YAML keeps only the last: "
                  "delete one"),
        ("error", f"{profiles}:9: profiles.safe.toolCallTimeout: must be a whole number above zero, got -5"),
        ("error", f"{retry}:1: maxAttempts: must be a whole number above zero, got 0"),
        ("error", f"{retry}:2: backoff: unknown key: the valid keys are retryIntervalSeconds, maxAttempts"),
    ]  # fmt: skip


def test_a_relative_project_folder_gives_relative_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "miniagent.yml", "profiles:\n  a:\n    readMaxLines: -5\n")
    monkeypatch.chdir(tmp_path)
    assert [str(problem) for problem in check_project(Path())] == [
        ".miniroom/miniagent.yml:3: profiles.a.readMaxLines: must be a whole number above zero, got -5"
    ]


def test_warnings_are_reported_with_their_severity(tmp_path: Path) -> None:
    path = write(tmp_path, "miniagent.yml", "profiles:\n  open:\n    disabledTools: []\n")
    (problem,) = check_project(tmp_path)
    assert problem == Problem(
        path, 3, "profiles.open.disabledTools",
        "is empty, so it disables nothing: name the tools to disable, or delete the key", "warning",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("wrong", "right"), [("miniagent.yaml", "miniagent.yml"), ("retry.yaml", "retry.yml")]
)
def test_a_file_with_the_other_yaml_suffix_is_a_warning(tmp_path: Path, wrong: str, right: str) -> None:
    path = write(tmp_path, wrong, "anything: at all\n")
    assert [(p.severity, str(p)) for p in check_project(tmp_path)] == [
        ("warning", f"{path}: miniroom reads {right}, never this file: rename it to {right}")
    ]


def test_an_unparseable_file_is_one_problem_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path, "miniagent.yml", "profiles:\n  safe:\n    toolCallTimeout: 60\n   bad: indent\n")
    assert [str(problem) for problem in check_project(tmp_path)] == [
        f"{path}:4: not valid YAML: did not find expected key; check the indentation and quoting there"
    ]


def test_check_file_picks_the_validator_by_name(tmp_path: Path) -> None:
    path = write(tmp_path, "retry.yml", "maxAttempts: 0\n")
    assert [str(problem) for problem in check_file(path)] == [
        f"{path}:1: maxAttempts: must be a whole number above zero, got 0"
    ]
    unknown = write(tmp_path, "notes.yml", "a: 1\n")
    assert [str(problem) for problem in check_file(unknown)] == [
        f"{unknown}: is not a settings file miniroom knows; it reads fetch.yml, hooks.yml, mcp.yml, "
        "miniagent.yml, retry.yml, search.yml"
    ]


def test_the_registry_holds_one_validator_per_file() -> None:
    assert sorted(str(path) for path in VALIDATORS) == [
        ".miniroom/fetch.yml",
        ".miniroom/hooks.yml",
        ".miniroom/mcp.yml",
        ".miniroom/miniagent.yml",
        ".miniroom/retry.yml",
        ".miniroom/search.yml",
    ]


@pytest.mark.parametrize(
    ("problem", "text"),
    [
        (Problem(Path("a.yml"), 7, "profiles.safe", "bad", "error"), "a.yml:7: profiles.safe: bad"),
        (Problem(Path("a.yml"), None, "", "cannot be read"), "a.yml: cannot be read"),
        (Problem(Path("a.yml"), 1, "", "not valid YAML"), "a.yml:1: not valid YAML"),
    ],
)
def test_problem_text(problem: Problem, text: str) -> None:
    assert str(problem) == text


def test_config_yaml_is_checked_whole_in_one_pass(tmp_path: Path) -> None:
    """A wrong key does not hide the wrong references, names and models of the rest of the file."""
    text = (
        "agents:\n"
        "  helper:\n"
        "    model: m\n"
        "    rooms: [lobby, nosuchroom]\n"
        "  other:\n"
        "    thread_mod: room\n"
        "  Bad Name: {}\n"
        "rooms:\n"
        "  lobby: {}\n"
        "models:\n"
        "  m:\n"
        "    model: nosuchprovider/foo\n"
    )
    (tmp_path / "config.yaml").write_text(text)
    found = [
        str(problem).split(": ", 1)[1] for problem in check_config_file(tmp_path / "config.yaml", env={})
    ]
    assert [line.split(":")[0] for line in found] == [
        "agents.helper.rooms[1]",
        "agents.other.thread_mod",
        'agents["Bad Name"]',
    ]
    fixed = text.replace(", nosuchroom", "").replace("  other:\n    thread_mod: room\n", "")
    fixed = fixed.replace("  Bad Name: {}\n", "")
    (tmp_path / "config.yaml").write_text(fixed)
    (warning,) = check_config_file(tmp_path / "config.yaml", env={"MINI_AGENT_DIR": str(tmp_path / "mini")})
    assert warning.severity == "warning"
    assert warning.key == "models.m.model"
    assert 'Unknown provider "nosuchprovider"' in warning.message
    assert "`miniroom serve` starts, but the requests of this model fail" in warning.message
