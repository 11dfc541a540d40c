"""Profile resolution: miniagent.yml, MINI_PROFILE_* in the process and the model's variables, errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from miniroom.agent.profile import (
    ProfileError,
    ProfileSettings,
    check_profile_file,
    model_variable_problems,
    parse_variables,
    profile_name_from_backend,
    resolve_profile,
)
from miniroom.tools import BUILTIN_TOOL_NAMES

BUILTIN_LIST = "read, bash, parallel_bash, edit, write, grep, find, glob, ls, load_skill, todo_write"
VALID_TOOLS = f"{BUILTIN_LIST}, and MCP tools as mcp__<server>__<tool> or mcp__<server>__*"


def write_profiles(project: Path, text: str) -> Path:
    path = project / ".miniroom" / "miniagent.yml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


SAFE_PROFILE = """\
profiles:
  safe:
    disabledTools:
      - bash
    toolCallTimeout: 60
    loadAgentsMd: false
  readonly:
    enabledTools: [read, grep, find, glob, ls]
  empty: {}
  bare:
"""

# --- defaults ---------------------------------------------------------------------------------------------

DEFAULTS = [
    ("loadClaudeMd", "load_claude_md", True),
    ("loadAgentsMd", "load_agents_md", True),
    ("enabledTools", "enabled_tools", None),
    ("disabledTools", "disabled_tools", None),
    ("toolCallTimeout", "tool_call_timeout", 300),
    ("firstByteTimeout", "first_byte_timeout", 60),
    ("idleTimeout", "idle_timeout", 180),
    ("maxModelRequests", "max_model_requests", 200),
    ("maxOutputTokens", "max_output_tokens", None),
    ("thinkingBudget", "thinking_budget", 65536),
    ("thinkingLevel", "thinking_level", None),
    ("parallelBashThreads", "parallel_bash_threads", 5),
    ("readMaxLines", "read_max_lines", 500),
    ("maxParallelAgents", "max_parallel_agents", 4),
    ("systemPrompt", "system_prompt", None),
    ("sessionHeader", "session_header", None),
    ("minimalBashTimeout", "minimal_bash_timeout", 120),
    ("answerTimeout", "answer_timeout", 1800),
    ("maxAnswerBytes", "max_answer_bytes", 67_108_864),
    ("sandbox", "sandbox", "off"),
    ("sandboxNetwork", "sandbox_network", False),
    ("approvalTimeout", "approval_timeout", 900),
]


@pytest.mark.parametrize(("key", "attr", "default"), DEFAULTS)
@pytest.mark.parametrize(
    ("yml", "backend"),
    [
        (None, None),  # no file, AGENT_BACKEND unset
        (SAFE_PROFILE, "mini"),  # no suffix
        (SAFE_PROFILE, "mini:"),  # empty suffix
        (SAFE_PROFILE, "mini:empty"),  # `{}` profile
        (SAFE_PROFILE, "mini:bare"),  # a profile with no value at all
    ],
)
def test_every_field_has_its_builtin_default(
    tmp_path: Path, yml: str | None, backend: str | None, key: str, attr: str, default: object
) -> None:
    if yml is not None:
        write_profiles(tmp_path, yml)
    env = {"AGENT_BACKEND": backend} if backend else {}
    resolved = resolve_profile(tmp_path, env)
    assert getattr(resolved.settings, attr) == default
    assert resolved.sources[key] == "default"
    assert resolved.warnings == ()


def test_a_profile_sets_only_the_fields_it_names(tmp_path: Path) -> None:
    write_profiles(tmp_path, SAFE_PROFILE)
    resolved = resolve_profile(tmp_path, {"AGENT_BACKEND": "mini:safe"})
    assert resolved.name == "safe"
    assert resolved.settings == ProfileSettings(
        disabled_tools=("bash",), tool_call_timeout=60, load_agents_md=False
    )
    profile_keys = {key for key, source in resolved.sources.items() if source == "profile"}
    assert profile_keys == {"disabledTools", "toolCallTimeout", "loadAgentsMd"}


def test_every_field_is_read_from_the_file(tmp_path: Path) -> None:
    write_profiles(
        tmp_path,
        """\
profiles:
  full:
    loadClaudeMd: false
    loadAgentsMd: false
    enabledTools: [read, ls]
    toolCallTimeout: 11
    firstByteTimeout: 17
    idleTimeout: 18
    maxModelRequests: 19
    maxOutputTokens: 12
    thinkingBudget: 13
    thinkingLevel: off
    parallelBashThreads: 14
    readMaxLines: 15
    maxParallelAgents: 16
    systemPrompt: You review code.
    sessionHeader: X-Review-Session
    minimalBashTimeout: 20
""",
    )
    settings = resolve_profile(tmp_path, {"AGENT_BACKEND": "mini:full"}).settings
    assert settings == ProfileSettings(False, False, ("read", "ls"), None, 11, 17, 18, 19, 12, 13, "off", 14,
                                       15, 16, "You review code.", "X-Review-Session", 20)  # fmt: skip


# --- precedence -------------------------------------------------------------------------------------------

PRECEDENCE = [
    # (profile value, process env value, model variable value, expected value, expected source)
    (None, None, None, 300, "default"),
    ("60", None, None, 60, "profile"),
    ("60", "120", None, 120, "env"),
    ("60", "120", "30", 30, "model"),
    (None, None, "30", 30, "model"),
    # an empty value counts as unset: the next source down answers
    ("60", "120", "", 120, "env"),
    ("60", "", "", 60, "profile"),
    ("''", "", "  ", 300, "default"),
    ("", None, None, 300, "default"),  # `toolCallTimeout:` with nothing after it
]


@pytest.mark.parametrize(("in_profile", "in_env", "in_model", "value", "source"), PRECEDENCE)
def test_model_variable_beats_process_env_beats_profile_beats_default(
    tmp_path: Path, in_profile: str | None, in_env: str | None, in_model: str | None, value: int, source: str
) -> None:
    line = f"    toolCallTimeout: {in_profile}\n" if in_profile is not None else "    {}\n"
    write_profiles(tmp_path, "profiles:\n  p:\n" + line.replace("    {}", "    loadClaudeMd: true"))
    env = {"AGENT_BACKEND": "mini:p"}
    if in_env is not None:
        env["MINI_PROFILE_TOOL_CALL_TIMEOUT"] = in_env
    model = {"MINI_PROFILE_TOOL_CALL_TIMEOUT": in_model} if in_model is not None else {}
    resolved = resolve_profile(tmp_path, env, model)
    assert resolved.settings.tool_call_timeout == value
    assert resolved.sources["toolCallTimeout"] == source


@pytest.mark.parametrize(
    ("profile_text", "expected"),
    [("systemPrompt: ''", None), ("systemPrompt:", None), ("systemPrompt: Be brief.", "Be brief.")],
)
def test_an_empty_system_prompt_means_the_builtin_one(
    tmp_path: Path, profile_text: str, expected: str
) -> None:
    write_profiles(tmp_path, f"profiles:\n  p:\n    {profile_text}\n")
    assert resolve_profile(tmp_path, {"AGENT_BACKEND": "mini:p"}).settings.system_prompt == expected


ENV_VALUES = [
    ("MINI_PROFILE_LOAD_CLAUDE_MD", "false", "load_claude_md", False),
    ("MINI_PROFILE_LOAD_CLAUDE_MD", "TRUE", "load_claude_md", True),
    ("MINI_PROFILE_LOAD_AGENTS_MD", " False ", "load_agents_md", False),
    ("MINI_PROFILE_SANDBOX_NETWORK", "true", "sandbox_network", True),
    ("MINI_PROFILE_ENABLED_TOOLS", "read, grep ,ls", "enabled_tools", ("read", "grep", "ls")),
    ("MINI_PROFILE_DISABLED_TOOLS", "bash", "disabled_tools", ("bash",)),
    ("MINI_PROFILE_TOOL_CALL_TIMEOUT", " 120 ", "tool_call_timeout", 120),
    ("MINI_PROFILE_FIRST_BYTE_TIMEOUT", "30", "first_byte_timeout", 30),
    ("MINI_PROFILE_IDLE_TIMEOUT", "600", "idle_timeout", 600),
    ("MINI_PROFILE_MAX_MODEL_REQUESTS", "50", "max_model_requests", 50),
    ("MINI_PROFILE_MAX_OUTPUT_TOKENS", "8000", "max_output_tokens", 8000),
    ("MINI_PROFILE_THINKING_BUDGET", "2048", "thinking_budget", 2048),
    ("MINI_PROFILE_THINKING_LEVEL", "High", "thinking_level", "high"),
    ("MINI_PROFILE_READ_MAX_LINES", "100", "read_max_lines", 100),
    ("MINI_PROFILE_PARALLEL_BASH_THREADS", "2", "parallel_bash_threads", 2),
    ("MINI_PROFILE_MAX_PARALLEL_AGENTS", "1", "max_parallel_agents", 1),
    ("MINI_PROFILE_SYSTEM_PROMPT", "You are terse.\n", "system_prompt", "You are terse.\n"),
    ("MINI_PROFILE_SESSION_HEADER", "X-Team-Session", "session_header", "X-Team-Session"),
    ("MINI_PROFILE_MINIMAL_BASH_TIMEOUT", "30", "minimal_bash_timeout", 30),
]


@pytest.mark.parametrize(("variable", "text", "attr", "value"), ENV_VALUES)
@pytest.mark.parametrize("layer", ["env", "model"])
def test_every_variable_overrides_its_setting(
    tmp_path: Path, layer: str, variable: str, text: str, attr: str, value: object
) -> None:
    variables = {variable: text}
    resolved = (
        resolve_profile(tmp_path, variables) if layer == "env" else resolve_profile(tmp_path, {}, variables)
    )
    assert getattr(resolved.settings, attr) == value
    key = "".join(part.capitalize() if i else part for i, part in enumerate(attr.split("_")))
    assert resolved.sources[key] == layer


# --- tool lists -------------------------------------------------------------------------------------------

ENABLED, DISABLED = "MINI_PROFILE_ENABLED_TOOLS", "MINI_PROFILE_DISABLED_TOOLS"
LIST_LAYERS = [
    # A list set in a higher source replaces both lists of the sources below it; the source of a list it
    # cleared is that higher source. (profile, env, model, enabled, disabled, their sources)
    ("disabledTools: [bash]", {ENABLED: "read"}, {}, ("read",), None, ("env", "env")),
    ("enabledTools: [read]", {}, {DISABLED: "bash"}, None, ("bash",), ("model", "model")),
    ("enabledTools: [read]", {ENABLED: "ls"}, {}, ("ls",), None, ("env", "default")),
    ("", {DISABLED: "bash"}, {ENABLED: "read,ls"}, ("read", "ls"), None, ("model", "model")),
    ("disabledTools: [bash]", {ENABLED: ""}, {}, None, ("bash",), ("default", "profile")),
    ("disabledTools: [bash]", {}, {}, None, ("bash",), ("default", "profile")),
]  # fmt: skip


@pytest.mark.parametrize(("profile_line", "env", "model", "enabled", "disabled", "sources"), LIST_LAYERS)
def test_a_higher_tool_list_replaces_both_lists_below(
    tmp_path: Path,
    profile_line: str,
    env: dict[str, str],
    model: dict[str, str],
    enabled: tuple[str, ...] | None,
    disabled: tuple[str, ...] | None,
    sources: tuple[str, str],
) -> None:
    write_profiles(tmp_path, f"profiles:\n  p:\n    {profile_line or 'loadClaudeMd: true'}\n")
    resolved = resolve_profile(tmp_path, {"AGENT_BACKEND": "mini:p", **env}, model)
    assert (resolved.settings.enabled_tools, resolved.settings.disabled_tools) == (enabled, disabled)
    assert (resolved.sources["enabledTools"], resolved.sources["disabledTools"]) == sources


@pytest.mark.parametrize(
    ("settings", "allowed", "refused"),
    [
        (ProfileSettings(), BUILTIN_TOOL_NAMES, ()),
        (ProfileSettings(enabled_tools=("read", "ls")), ("read", "ls"), ("bash", "write", "todo_write")),
        (ProfileSettings(disabled_tools=("write",)), ("read", "bash", "parallel_bash"), ("write",)),
        (ProfileSettings(disabled_tools=()), BUILTIN_TOOL_NAMES, ()),
    ],
)
def test_tool_enabled_filters_only_the_builtins(
    settings: ProfileSettings, allowed: tuple[str, ...], refused: tuple[str, ...]
) -> None:
    assert all(settings.tool_enabled(name) for name in allowed)
    assert not any(settings.tool_enabled(name) for name in refused)
    never_filtered = ("agent", "agent_start", "agent_check", "agent_stop", "fetch", "search")
    assert all(settings.tool_enabled(name) for name in never_filtered)


@pytest.mark.parametrize(
    ("settings", "allowed", "refused"),
    [
        (ProfileSettings(), ("mcp__files__read", "mcp__docs__search"), ()),
        (ProfileSettings(enabled_tools=("read",)), (), ("mcp__files__read",)),
        (ProfileSettings(enabled_tools=("mcp__files__*",)), ("mcp__files__read",), ("mcp__docs__search",)),
        (ProfileSettings(enabled_tools=("mcp__files__read",)), ("mcp__files__read",), ("mcp__files__write",)),
        (ProfileSettings(disabled_tools=("mcp__docs__*",)), ("mcp__files__read",), ("mcp__docs__search",)),
        (
            ProfileSettings(disabled_tools=("mcp__files__write",)),
            ("mcp__files__read",),
            ("mcp__files__write",),
        ),
    ],
)
def test_mcp_tools_obey_the_tool_lists_by_name_or_by_server(
    settings: ProfileSettings, allowed: tuple[str, ...], refused: tuple[str, ...]
) -> None:
    assert all(settings.tool_enabled(name) for name in allowed)
    assert not any(settings.tool_enabled(name) for name in refused)
    assert not ProfileSettings(enabled_tools=("mcp__files__*",)).tool_enabled("mcp__files2__read")


@pytest.mark.parametrize(
    "settings",
    [
        ProfileSettings(disabled_tools=("bash",)),
        ProfileSettings(enabled_tools=("read", "parallel_bash")),
        ProfileSettings(enabled_tools=("read",)),
    ],
    ids=["bash disabled", "parallel_bash listed without bash", "neither listed"],
)
def test_parallel_bash_goes_wherever_bash_goes(settings: ProfileSettings) -> None:
    assert not settings.tool_enabled("bash")
    assert not settings.tool_enabled("parallel_bash")
    assert settings.tool_enabled("read")
    assert "parallel_bash" not in settings.enabled_builtin_tools()


@pytest.mark.parametrize(
    ("env", "where"),
    [
        ({}, "profile 'p' in .miniroom/miniagent.yml"),
        (
            {"MINI_PROFILE_ENABLED_TOOLS": "parallel_bash,ls"},
            "MINI_PROFILE_ENABLED_TOOLS in the process environment",
        ),
    ],
)
def test_an_allowlist_with_parallel_bash_but_not_bash_warns(
    tmp_path: Path, env: dict[str, str], where: str
) -> None:
    write_profiles(tmp_path, "profiles:\n  p:\n    enabledTools: [read, parallel_bash]\n")
    resolved = resolve_profile(tmp_path, {"AGENT_BACKEND": "mini:p", **env})
    assert not resolved.settings.tool_enabled("parallel_bash")
    assert resolved.warnings == (
        f"enabledTools from {where} lists parallel_bash but not bash: parallel_bash runs bash commands, so "
        "it is off too; add bash to allow both, or remove parallel_bash.",
    )


def test_builtin_tool_names_are_the_eleven_in_the_documented_order() -> None:
    assert ", ".join(BUILTIN_TOOL_NAMES) == BUILTIN_LIST


# --- AGENT_BACKEND ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "name"),
    [
        (None, None),
        ("", None),
        ("mini", None),
        ("mini:", None),
        ("mini:safe", "safe"),
        ("mini:Safe", "safe"),
        (" MINI:SAFE ", "safe"),
        ("mini-agent:safe", "safe"),
        ("mini-agent", None),
    ],
)
def test_profile_name_from_backend(value: str | None, name: str | None) -> None:
    assert profile_name_from_backend(value) == name


@pytest.mark.parametrize("value", ["claude-code", "opencode:safe", "minis:safe"])
def test_another_backend_is_refused(value: str) -> None:
    with pytest.raises(ProfileError) as caught:
        profile_name_from_backend(value)
    assert str(caught.value) == (
        f"{value} names a backend miniroom does not have: miniroom has only the built-in `mini` backend; "
        "set AGENT_BACKEND=mini, or AGENT_BACKEND=mini:<profile> to use a profile from "
        ".miniroom/miniagent.yml"
    )


@pytest.mark.parametrize(
    ("env", "model", "where"),
    [
        ({"AGENT_BACKEND": "codex"}, {}, "in the process environment"),
        ({"AGENT_BACKEND": "mini"}, {"AGENT_BACKEND": "codex"}, "in the model's variables"),
    ],
)
def test_resolve_says_where_a_foreign_backend_was_set(
    tmp_path: Path, env: dict[str, str], model: dict[str, str], where: str
) -> None:
    with pytest.raises(ProfileError, match=f"^AGENT_BACKEND {where}: codex names a backend miniroom"):
        resolve_profile(tmp_path, env, model)


@pytest.mark.parametrize(
    ("env", "model", "name"),
    [
        ({"AGENT_BACKEND": "mini:readonly"}, {"AGENT_BACKEND": "mini:SAFE"}, "safe"),  # the model's wins
        ({"AGENT_BACKEND": "mini:safe"}, {"AGENT_BACKEND": ""}, "safe"),  # empty counts as unset
        ({}, {"AGENT_BACKEND": "mini-agent:ReadOnly"}, "readonly"),
    ],
)
def test_the_model_picks_the_profile_case_insensitively(
    tmp_path: Path, env: dict[str, str], model: dict[str, str], name: str
) -> None:
    write_profiles(tmp_path, SAFE_PROFILE)
    assert resolve_profile(tmp_path, env, model).name == name


def test_a_numeric_profile_name_is_a_name(tmp_path: Path) -> None:
    write_profiles(tmp_path, "profiles:\n  2024:\n    readMaxLines: 9\n")
    resolved = resolve_profile(tmp_path, {"AGENT_BACKEND": "mini:2024"})
    assert (resolved.name, resolved.settings.read_max_lines) == ("2024", 9)


@pytest.mark.parametrize("yml", [SAFE_PROFILE, None])
def test_a_nonexistent_profile_is_refused_not_widened_to_the_defaults(
    tmp_path: Path, yml: str | None
) -> None:
    if yml:
        write_profiles(tmp_path, yml)
    with pytest.raises(ProfileError) as refused:
        resolve_profile(tmp_path, {"AGENT_BACKEND": "mini:Nope"})
    known = "bare, empty, readonly, safe" if yml else "none"
    assert str(refused.value) == (
        f"Profile 'nope' (AGENT_BACKEND=mini:Nope) is not in .miniroom/miniagent.yml "
        f"(profiles there: {known}): name one of those, or add it to the file; miniroom does not fall back "
        "to the built-in defaults, which allow every tool."
    )


# --- errors in variables ----------------------------------------------------------------------------------

ENV_ERRORS = [
    ("MINI_PROFILE_LOAD_CLAUDE_MD", "maybe", 'must be true or false, got "maybe"'),
    ("MINI_PROFILE_LOAD_CLAUDE_MD", "yes", 'must be true or false, got "yes"'),
    ("MINI_PROFILE_LOAD_AGENTS_MD", "0", 'must be true or false, got "0"'),
    ("MINI_PROFILE_SANDBOX_NETWORK", "on", 'must be true or false, got "on"'),
    ("MINI_PROFILE_TOOL_CALL_TIMEOUT", "abc", 'must be a whole number above zero, got "abc"'),
    ("MINI_PROFILE_TOOL_CALL_TIMEOUT", "0", "must be a whole number above zero, got 0"),
    ("MINI_PROFILE_MAX_OUTPUT_TOKENS", "-5", "must be a whole number above zero, got -5"),
    ("MINI_PROFILE_READ_MAX_LINES", "1.5", 'must be a whole number above zero, got "1.5"'),
    ("MINI_PROFILE_MAX_MODEL_REQUESTS", "0", "must be a whole number above zero, got 0"),
    ("MINI_PROFILE_IDLE_TIMEOUT", "soon", 'must be a whole number above zero, got "soon"'),
    ("MINI_PROFILE_THINKING_LEVEL", "extreme", "must be one of 'off', 'minimal', 'low', 'medium', 'high', "
     "'xhigh' or 'max', got \"extreme\""),
    ("MINI_PROFILE_ENABLED_TOOLS", "bsh", f"unknown tool 'bsh' (did you mean bash?); a profile can list only "
     f"{VALID_TOOLS}"),
    ("MINI_PROFILE_ENABLED_TOOLS", " , ", "is empty, which would leave the agent no tools at all: name the "
     "tools to allow"),
    ("MINI_PROFILE_DISABLED_TOOLS", "agent_stop", "'agent_stop' is always given to root chats and no profile "
     "can enable or disable it: remove it"),
    ("MINI_PROFILE_DISABLED_TOOLS", "search", "'search' is not a built-in tool and no profile can enable or "
     "disable it: it exists while .miniroom/search.yml has an enabled service; remove it from the list"),
    ("MINI_PROFILE_SESSION_HEADER", "X Session", "must be an HTTP header name (letters, digits and '-', no "
     "spaces), got \"X Session\""),
]  # fmt: skip


@pytest.mark.parametrize(("variable", "text", "message"), ENV_ERRORS)
@pytest.mark.parametrize(
    ("layer", "where"), [("env", "in the process environment"), ("model", "in the model's variables")]
)
def test_an_unusable_variable_is_a_hard_error_naming_it(
    tmp_path: Path, layer: str, where: str, variable: str, text: str, message: str
) -> None:
    env, model = ({variable: text}, {}) if layer == "env" else ({}, {variable: text})
    with pytest.raises(ProfileError) as caught:
        resolve_profile(tmp_path, env, model)
    assert str(caught.value) == f"{variable} {where}: {message}"


def test_every_bad_variable_of_a_source_is_reported_at_once(tmp_path: Path) -> None:
    env = {"MINI_PROFILE_TOOL_CALL_TIMEOUT": "x", "MINI_PROFILE_LOAD_AGENTS_MD": "2"}
    with pytest.raises(ProfileError) as caught:
        resolve_profile(tmp_path, env)
    assert str(caught.value).splitlines() == [
        'MINI_PROFILE_LOAD_AGENTS_MD in the process environment: must be true or false, got "2"',
        "MINI_PROFILE_TOOL_CALL_TIMEOUT in the process environment: must be a whole number above zero, "
        'got "x"',
    ]


@pytest.mark.parametrize(
    ("layer", "where"), [("env", "in the process environment"), ("model", "in the model's variables")]
)
def test_both_list_variables_in_one_source_is_a_hard_error(tmp_path: Path, layer: str, where: str) -> None:
    lists = {"MINI_PROFILE_ENABLED_TOOLS": "read", "MINI_PROFILE_DISABLED_TOOLS": "bash"}
    env, model = (lists, {}) if layer == "env" else ({}, lists)
    with pytest.raises(ProfileError) as caught:
        resolve_profile(tmp_path, env, model)
    assert str(caught.value) == (
        f"MINI_PROFILE_DISABLED_TOOLS {where}: MINI_PROFILE_ENABLED_TOOLS is set too; set only one, "
        "the allowlist or the denylist"
    )


def test_an_empty_list_variable_does_not_conflict(tmp_path: Path) -> None:
    env = {"MINI_PROFILE_ENABLED_TOOLS": "read", "MINI_PROFILE_DISABLED_TOOLS": ""}
    assert resolve_profile(tmp_path, env).settings.enabled_tools == ("read",)


# --- empty disabledTools ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("yml", "env", "model", "where"),
    [
        ("profiles:\n  p:\n    disabledTools: []\n", {}, {}, "profile 'p' in .miniroom/miniagent.yml"),
        (
            None,
            {"MINI_PROFILE_DISABLED_TOOLS": ","},
            {},
            "MINI_PROFILE_DISABLED_TOOLS in the process environment",
        ),
        (
            None,
            {},
            {"MINI_PROFILE_DISABLED_TOOLS": " ,"},
            "MINI_PROFILE_DISABLED_TOOLS in the model's variables",
        ),
    ],
)
def test_an_empty_disabled_list_is_only_a_warning(
    tmp_path: Path, yml: str | None, env: dict[str, str], model: dict[str, str], where: str
) -> None:
    if yml:
        write_profiles(tmp_path, yml)
    backend = {"AGENT_BACKEND": "mini:p"} if yml else {}
    resolved = resolve_profile(tmp_path, {**backend, **env}, model)
    assert resolved.settings.disabled_tools == ()
    assert resolved.warnings[-1] == (
        f"disabledTools from {where} is empty, so it disables nothing: name the tools to disable, or remove "
        "the setting."
    )


# --- errors in miniagent.yml ------------------------------------------------------------------------------

YML_ERRORS = [
    ("profiles:\n  safe:\n    toolCallTimeout: -5\n",
     "3: profiles.safe.toolCallTimeout: must be a whole number above zero, got -5"),
    ("profiles:\n  safe:\n    readMaxLines: 1.5\n",
     "3: profiles.safe.readMaxLines: must be a whole number above zero, got 1.5"),
    ("profiles:\n  safe:\n    maxParallelAgents: '4'\n",
     '3: profiles.safe.maxParallelAgents: must be a whole number above zero, got "4"'),
    ("profiles:\n  safe:\n    loadClaudeMd: maybe\n",
     '3: profiles.safe.loadClaudeMd: must be true or false, got "maybe"'),
    ("profiles:\n  safe:\n    thinkingLevel: extreme\n",
     "3: profiles.safe.thinkingLevel: must be one of 'off', 'minimal', 'low', 'medium', 'high', 'xhigh' or "
     "'max', got \"extreme\""),
    ("profiles:\n  safe:\n    systemPrompt: [a]\n",
     "3: profiles.safe.systemPrompt: must be text, got a list"),
    ("profiles:\n  safe:\n    disabledTools: bash\n",
     '3: profiles.safe.disabledTools: must be a list (one `- item` per line), got "bash"'),
    ("profiles:\n  safe:\n    disabledTools:\n      - read\n      - Bash\n",
     f"5: profiles.safe.disabledTools[1]: unknown tool 'Bash' (did you mean bash?); a profile can list only "
     f"{VALID_TOOLS}"),
    ("profiles:\n  safe:\n    enabledTools: [read, mcp__files]\n",
     "3: profiles.safe.enabledTools[1]: 'mcp__files' is not an MCP tool name: write mcp__<server>__<tool> as "
     "`miniroom mcp list` shows it, or mcp__<server>__* for every tool of a server"),
    ("profiles:\n  safe:\n    disabledTools: [mcp__my.server__x]\n",
     "3: profiles.safe.disabledTools[0]: 'mcp__my.server__x' is not an MCP tool name: write "
     "mcp__<server>__<tool> as `miniroom mcp list` shows it, or mcp__<server>__* for every tool of a server"),
    ("profiles:\n  safe:\n    enabledTools:\n      - agent\n",
     "4: profiles.safe.enabledTools[0]: 'agent' is always given to root chats and no profile can enable or "
     "disable it: remove it"),
    ("profiles:\n  safe:\n    disabledTools: [fetch]\n",
     "3: profiles.safe.disabledTools[0]: 'fetch' is not a built-in tool and no profile can enable or disable "
     "it: it exists while .miniroom/fetch.yml has an enabled service; remove it from the list"),
    ("profiles:\n  safe:\n    enabledTools: []\n",
     "3: profiles.safe.enabledTools: is empty, which would leave the agent no tools at all: name the "
     "tools to allow"),
    ("profiles:\n  safe:\n    enabledTools: [read]\n    disabledTools: [bash]\n",
     "2: profiles.safe: sets both enabledTools and disabledTools: keep one, the allowlist (enabledTools) or "
     "the denylist (disabledTools)"),
    ("profiles:\n  safe:\n    loadClaudeMd: true\n    tolCallTimeout: 5\n",
     "4: profiles.safe.tolCallTimeout: unknown key: did you mean toolCallTimeout? the valid keys are "
     "loadClaudeMd, loadAgentsMd, enabledTools, disabledTools, toolCallTimeout, firstByteTimeout, "
     "idleTimeout, maxModelRequests, maxOutputTokens, "
     "thinkingBudget, thinkingLevel, parallelBashThreads, readMaxLines, maxParallelAgents, systemPrompt, "
     "sessionHeader, minimalBashTimeout, answerTimeout, maxAnswerBytes, sandbox, sandboxNetwork, "
     "approvalTimeout"),
    ("profiles:\n  safe:\n    sessionHeader: 'X Session'\n",
     "3: profiles.safe.sessionHeader: must be an HTTP header name (letters, digits and '-', no spaces), got "
     "\"X Session\""),
    ("profiles:\n  Safe Mode: {}\n",
     "2: profiles.Safe Mode: 'Safe Mode' is not a valid profile name: use lowercase letters, digits, '-' and "
     "'_', starting with a letter or digit, for example 'safe-mode'"),
    ("profiles:\n  -x: {}\n",
     "2: profiles.-x: '-x' is not a valid profile name: use lowercase letters, digits, '-' and '_', starting "
     "with a letter or digit, for example 'x'"),
    ("profiles:\n  safe: [read]\n", "2: profiles.safe: must be a mapping of keys to values, got a list"),
    ("profiles:\n  yes: {}\n",
     "2: profiles.True: YAML reads this profile name as true, not as text: put the name in quotes"),
    ("profiles:\n  0x1f: {}\n  safe:\n    readMaxLines: 0\n",
     "4: profiles.safe.readMaxLines: must be a whole number above zero, got 0"),
    ("profiles:\n  safe: {}\nprofile:\n  x: {}\n",
     "3: profile: unknown key: the file holds only `profiles:` at its root"),
    ("profiles: [safe]\n", "1: profiles: must be a mapping of profile names to settings, got a list"),
    ("- safe\n", "1: the file must be a mapping with a `profiles:` key, got a list"),
    ("profiles:\n  safe: {}\n  safe: {}\n",
     "3: profiles.safe: is written twice (lines 2 and 3); YAML keeps only the last: delete one"),
    ("profiles:\n  safe:\n    toolCallTimeout: [60\n",
     "4: not valid YAML: did not find expected ',' or ']'; check the indentation and quoting "
     "there"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "expected"), YML_ERRORS)
def test_each_file_error_names_file_line_key_and_fix(tmp_path: Path, text: str, expected: str) -> None:
    path = write_profiles(tmp_path, text)
    assert [str(problem) for problem in check_profile_file(path)] == [f"{path}:{expected}"]
    with pytest.raises(ProfileError) as caught:
        resolve_profile(tmp_path, {"AGENT_BACKEND": "mini:other"})
    assert str(caught.value) == f"{path}:{expected}"


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        (
            "disabledTools: []",
            "disabledTools: is empty, so it disables nothing: name the tools to disable, or delete the key",
        ),
        (
            "enabledTools: [parallel_bash]",
            "enabledTools: lists parallel_bash but not bash: parallel_bash runs bash commands, so it is off "
            "too; add bash to allow both, or remove parallel_bash",
        ),
    ],
    ids=["empty disabledTools", "parallel_bash without bash"],
)
def test_tool_lists_that_do_not_do_what_they_say_are_warnings_for_config_check(
    tmp_path: Path, setting: str, message: str
) -> None:
    path = write_profiles(tmp_path, f"profiles:\n  p:\n    {setting}\n")
    (problem,) = check_profile_file(path)
    assert (problem.severity, str(problem)) == ("warning", f"{path}:3: profiles.p.{message}")


@pytest.mark.parametrize("text", ["", "# nothing yet\n", "profiles:\n", "profiles: {}\n"])
def test_an_empty_file_means_defaults(tmp_path: Path, text: str) -> None:
    path = write_profiles(tmp_path, text)
    assert check_profile_file(path) == []
    assert resolve_profile(tmp_path, {}).settings == ProfileSettings()


def test_anchors_and_merge_keys_share_settings_between_profiles(tmp_path: Path) -> None:
    text = """\
profiles:
  base: &base
    toolCallTimeout: 60
    readMaxLines: 10
  strict:
    <<: *base
    toolCallTimeout: 30
"""
    path = write_profiles(tmp_path, text)
    assert check_profile_file(path) == []
    settings = resolve_profile(tmp_path, {"AGENT_BACKEND": "mini:strict"}).settings
    assert (settings.tool_call_timeout, settings.read_max_lines) == (30, 10)


# --- parse_variables and to_json --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        ([], {}),
        (["AGENT_BACKEND=mini:safe"], {"AGENT_BACKEND": "mini:safe"}),
        (["A = 1 ", "", "B=x=y", "C="], {"A": "1", "B": "x=y", "C": ""}),
        (["A=1", "A=2"], {"A": "2"}),
    ],
)
def test_parse_variables(lines: list[str], expected: dict[str, str]) -> None:
    assert parse_variables(lines) == expected


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["A=1", "AGENT_BACKEND"], "Model variable 2 ('AGENT_BACKEND') has no '=': write it as NAME=value."),
        (["AGENT_BACKEND mini:safe"],
         "Model variable 1 ('AGENT_BACKEND ...') has no '=': write it as NAME=value."),
        (["sk-secret-123"], "Model variable 1 has no '=': write it as NAME=value."),
        (["=x"], "Model variable 1 has the name '': a variable name is letters, digits and '_', not starting "
         "with a digit (NAME=value)."),
        (["1A=x"], "Model variable 1 has the name '1A': a variable name is letters, digits and '_', not "
         "starting with a digit (NAME=value)."),
    ],
)  # fmt: skip
def test_parse_variables_refuses_a_line_it_cannot_read(lines: list[str], message: str) -> None:
    with pytest.raises(ProfileError) as caught:
        parse_variables(lines)
    assert str(caught.value) == message
    assert "sk-secret" not in str(caught.value)


def test_parsed_variables_feed_resolution(tmp_path: Path) -> None:
    write_profiles(tmp_path, SAFE_PROFILE)
    variables = parse_variables(["AGENT_BACKEND=mini:safe", "MINI_PROFILE_READ_MAX_LINES=50"])
    resolved = resolve_profile(tmp_path, {"MINI_PROFILE_READ_MAX_LINES": "80"}, variables)
    assert (resolved.name, resolved.settings.read_max_lines, resolved.sources["readMaxLines"]) == (
        "safe",
        50,
        "model",
    )


def test_to_json_reports_each_value_and_its_source(tmp_path: Path) -> None:
    write_profiles(tmp_path, SAFE_PROFILE)
    resolved = resolve_profile(tmp_path, {"AGENT_BACKEND": "mini:safe", "MINI_PROFILE_THINKING_LEVEL": "low"})
    data: dict[str, Any] = resolved.to_json()
    assert data["profile"] == "safe"
    assert data["warnings"] == []
    assert list(data["settings"]) == [key for key, _, _ in DEFAULTS]
    assert data["settings"]["disabledTools"] == {"value": ["bash"], "source": "profile"}
    assert data["settings"]["thinkingLevel"] == {"value": "low", "source": "env"}
    assert data["settings"]["readMaxLines"] == {"value": 500, "source": "default"}


# --- a model's variables: the runtime's own check, shared with `config check` and `serve` -------------------


def test_a_model_naming_a_missing_profile_is_an_error(tmp_path: Path) -> None:
    write_profiles(tmp_path, "profiles:\n  safe:\n    disabledTools: [bash]\n")
    with pytest.raises(ProfileError) as caught:
        resolve_profile(tmp_path, {"AGENT_BACKEND": "mini:safe"}, {"AGENT_BACKEND": "mini:Nope"})
    assert str(caught.value) == (
        f"AGENT_BACKEND in the model's variables: mini:Nope names the profile 'nope', which "
        f"{tmp_path / '.miniroom' / 'miniagent.yml'} does not have (profiles there: safe): name one of "
        "those, or add 'nope' to the file"
    )


def test_model_variables_laid_over_the_environment_are_reported_as_the_models(tmp_path: Path) -> None:
    # The room runtime passes the environment with the model's variables already laid over it.
    model = {"MINI_PROFILE_TOOL_CALL_TIMEOUT": "abc"}
    with pytest.raises(ProfileError) as caught:
        resolve_profile(tmp_path, {"PATH": "/bin", **model}, model)
    assert str(caught.value) == (
        "MINI_PROFILE_TOOL_CALL_TIMEOUT in the model's variables: must be a whole number above zero, "
        'got "abc"'
    )


def test_a_model_variable_shadows_the_same_variable_of_the_environment(tmp_path: Path) -> None:
    resolved = resolve_profile(
        tmp_path, {"MINI_PROFILE_TOOL_CALL_TIMEOUT": "abc"}, {"MINI_PROFILE_TOOL_CALL_TIMEOUT": "60"}
    )
    assert (resolved.settings.tool_call_timeout, resolved.sources["toolCallTimeout"]) == (60, "model")


def test_every_problem_of_a_models_variables_at_once() -> None:
    variables = {
        "AGENT_BACKEND": "codex",
        "MINI_PROFILE_ENABLED_TOOLS": "read",
        "MINI_PROFILE_DISABLED_TOOLS": "bash",
        "MINI_PROFILE_READ_MAX_LINES": "-1",
        "MINI_PROFILE_READMAXLINES": "5",
        "MINI_BASE_URL": "http://127.0.0.1:1",  # not a profile setting, and not the profile's to check
    }
    assert [problem.name for problem in model_variable_problems(variables, ["safe"])] == [
        "AGENT_BACKEND",
        "MINI_PROFILE_READMAXLINES",
        "MINI_PROFILE_DISABLED_TOOLS",
        "MINI_PROFILE_READ_MAX_LINES",
    ]
    fine = {"AGENT_BACKEND": "mini:safe", "MINI_PROFILE_READ_MAX_LINES": "5"}
    assert model_variable_problems(fine, ["safe"]) == []


def test_a_whole_number_too_long_to_convert_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match="READ_MAX_LINES in the process environment: must be a whole"):
        resolve_profile(tmp_path, {"MINI_PROFILE_READ_MAX_LINES": "9" * 5000})
    with pytest.raises(ProfileError, match="must be at most 2147483647, got 99999999999"):
        resolve_profile(tmp_path, {"MINI_PROFILE_READ_MAX_LINES": "99999999999"})


# sandbox


def test_sandbox_is_off_by_default_and_workspace_under_serve_defaults(tmp_path: Path) -> None:
    from miniroom.agent.profile import SERVE_DEFAULTS

    plain = resolve_profile(tmp_path, {})
    served = resolve_profile(tmp_path, {}, defaults=SERVE_DEFAULTS)
    assert (plain.settings.sandbox, plain.sources["sandbox"]) == ("off", "default")
    assert (served.settings.sandbox, served.sources["sandbox"]) == ("workspace", "default")
    assert served.settings.sandbox_network is False


def test_sandbox_from_the_file_and_the_environment(tmp_path: Path) -> None:
    write_profiles(tmp_path, "profiles:\n  open:\n    sandbox: off\n    sandboxNetwork: true\n")
    from miniroom.agent.profile import SERVE_DEFAULTS

    resolved = resolve_profile(tmp_path, {"AGENT_BACKEND": "mini:open"}, defaults=SERVE_DEFAULTS)
    assert (resolved.settings.sandbox, resolved.sources["sandbox"]) == ("off", "profile")
    assert resolved.settings.sandbox_network is True
    env = {"MINI_PROFILE_SANDBOX": "Read-Only"}
    assert resolve_profile(tmp_path, env).settings.sandbox == "read-only"
    assert resolve_profile(tmp_path, env).sources["sandbox"] == "env"


def test_a_bad_sandbox_mode_is_refused_with_the_choices(tmp_path: Path) -> None:
    with pytest.raises(ProfileError) as caught:
        resolve_profile(tmp_path, {"MINI_PROFILE_SANDBOX": "strict"})
    message = str(caught.value)
    assert "MINI_PROFILE_SANDBOX" in message
    for choice in ("'off'", "'workspace'", "'read-only'"):
        assert choice in message
