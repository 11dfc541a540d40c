"""MiniAgent profiles: defaults < `.miniroom/miniagent.yml` < `MINI_PROFILE_*` < the model's variables."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal

from miniroom.agent.tool_names import (
    allowed_with_requirements,
    mcp_tool_listed,
    unmet_requirements,
)
from miniroom.agent.variables import ProfileError as ProfileError
from miniroom.agent.variables import VariableProblem as VariableProblem
from miniroom.agent.variables import parse_variables as parse_variables
from miniroom.agent.variables import profile_name_from_backend as profile_name_from_backend
from miniroom.config.paths import PROFILE_FILE
from miniroom.config.problems import Problem, camel_key, describe_value, did_you_mean
from miniroom.config.settings_file import SettingsFileError
from miniroom.engine import ToolSettings
from miniroom.llm import ThinkingLevel, base_url_problem
from miniroom.mcp.names import PREFIX as MCP_PREFIX
from miniroom.tools import BUILTIN_TOOL_NAMES

PROFILE_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
ENV_PREFIX = "MINI_PROFILE_"
Source = Literal["default", "profile", "env", "model"]
SandboxMode = Literal["off", "workspace", "read-only"]
WHERE = {"env": "in the process environment", "model": "in the model's variables"}
_NO_VARIABLES: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True)
class ProfileSettings:
    """One agent's settings; the field defaults are the built-in defaults."""

    load_claude_md: bool = True
    load_agents_md: bool = True
    enabled_tools: tuple[str, ...] | None = None
    disabled_tools: tuple[str, ...] | None = None
    tool_call_timeout: int = 300
    first_byte_timeout: int = 60  # seconds for a provider's response to start
    idle_timeout: int = 180  # seconds a provider's reply may bring no content (pings do not count)
    max_model_requests: int = 200  # model requests one turn may make; a runaway tool loop stops there
    max_output_tokens: int | None = None  # None: the model's own ceiling
    thinking_budget: int = 65536
    thinking_level: ThinkingLevel | None = None  # None: the level from the model name or the session
    parallel_bash_threads: int = ToolSettings.parallel_bash_threads
    read_max_lines: int = ToolSettings.read_max_lines
    max_parallel_agents: int = 4
    system_prompt: str | None = None  # None: the built-in prompt
    session_header: str | None = None  # None: the provider's usual header
    minimal_bash_timeout: int = 120  # seconds a minimal-mode bash command runs unless the model says less
    answer_timeout: int = 1800  # seconds one provider answer may take in all, however steadily it comes
    max_answer_bytes: int = 64 * 1024 * 1024  # bytes one provider answer may bring (as received)
    sandbox: SandboxMode = "off"  # the command that builds the agent may pass another default (serve)
    sandbox_network: bool = False  # whether sandboxed commands reach the network
    approval_timeout: int = ToolSettings.approval_timeout  # seconds a call waits for approval

    def tool_enabled(self, name: str) -> bool:
        """Whether the profile lets this tool in; tools a profile cannot filter always are."""
        if name.startswith(MCP_PREFIX):
            if self.enabled_tools is not None:
                return mcp_tool_listed(name, self.enabled_tools)
            return not mcp_tool_listed(name, self.disabled_tools or ())
        if name not in BUILTIN_TOOL_NAMES:
            return True
        return allowed_with_requirements(name, self._listed)

    def _listed(self, name: str) -> bool:
        if self.enabled_tools is not None:
            return name in self.enabled_tools
        return name not in (self.disabled_tools or ())

    def enabled_builtin_tools(self) -> list[str]:
        return [name for name in BUILTIN_TOOL_NAMES if self.tool_enabled(name)]


SETTING_NAMES: tuple[str, ...] = tuple(item.name for item in fields(ProfileSettings))
_DEFAULTS = ProfileSettings()
# Agents in rooms take instructions from other people: their shells are sandboxed unless a profile says not.
SERVE_DEFAULTS = ProfileSettings(sandbox="workspace")
_LIST_KEYS = ("enabledTools", "disabledTools")


@dataclass(frozen=True)
class ResolvedProfile:
    """The settings an agent gets, where each came from, and what the user should hear about."""

    name: str | None
    settings: ProfileSettings
    sources: dict[str, str]  # camelCase field -> "default" | "profile" | "env" | "model"
    warnings: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        settings = {}
        for attr in SETTING_NAMES:
            value = getattr(self.settings, attr)
            key = camel_key(attr)
            settings[key] = {
                "value": list(value) if isinstance(value, tuple) else value,
                "source": self.sources[key],
            }
        return {
            "profile": self.name,
            "settings": settings,
            "tools": self.settings.enabled_builtin_tools(),
            "warnings": list(self.warnings),
        }


def _profile_name_problem(name: object) -> str | None:
    if isinstance(name, str) and PROFILE_NAME.match(name):
        return None
    if isinstance(name, bool):
        return f"YAML reads this profile name as {describe_value(name)}, not as text: put the name in quotes"
    suggestion = re.sub(r"[^a-z0-9_-]+", "-", str(name).lower()).strip("-_")
    hint = f", for example '{suggestion}'" if PROFILE_NAME.match(suggestion) else ""
    return (
        f"'{name}' is not a valid profile name: use lowercase letters, digits, '-' and '_', "
        f"starting with a letter or digit{hint}"
    )


def read_profiles(path: Path) -> tuple[dict[str, dict[str, Any]], list[Problem]]:
    """Each valid profile's set fields (camelCase), and every problem (errors and warnings) in the file."""
    if not path.exists():
        return {}, []
    # The YAML reader and pydantic only for a project with the file
    from pydantic import ValidationError

    from miniroom.config.settings_model import keyed_section, validation_problems
    from miniroom.config.yaml_source import load_yaml

    try:
        source = load_yaml(path)
    except SettingsFileError as error:
        return {}, [error.problem]
    problems = list(source.problems)
    profiles: dict[str, dict[str, Any]] = {}
    for key, body in keyed_section(source, "profiles", "profile", problems).items():
        # YAML reads a name such as `2024:` as a number, though the name mask allows it.
        name = str(key) if isinstance(key, int) and not isinstance(key, bool) else key
        loc = ("profiles", str(name))
        name_problem = _profile_name_problem(name)
        if name_problem:
            problems.append(source.problem(loc, name_problem))
            continue
        from miniroom.agent.profile_fields import ProfileFields  # built only when a profile is written

        try:
            parsed = ProfileFields.model_validate({} if body is None else body)
        except ValidationError as error:
            problems.extend(validation_problems(source, error, ProfileFields, loc))
            continue
        if parsed.disabled_tools == []:
            message = "is empty, so it disables nothing: name the tools to disable, or delete the key"
            problems.append(source.problem((*loc, "disabledTools"), message, "warning"))
        for message in unmet_requirements(parsed.enabled_tools or ()):
            problems.append(source.problem((*loc, "enabledTools"), message, "warning"))
        profiles[name] = parsed.model_dump(by_alias=True, exclude_none=True)
    return profiles, problems


def profile_names(project_dir: Path) -> list[str]:
    """The names of the valid profiles in the project's miniagent.yml, sorted."""
    return sorted(read_profiles(project_dir / PROFILE_FILE)[0])


def check_profile_file(path: Path) -> list[Problem]:
    """Everything wrong in a miniagent.yml, with line numbers (for `config check`)."""
    return read_profiles(path)[1]


_BOOLEAN_TEXT = {"true": True, "false": False}  # any other word (yes, 1, on) is refused, naming the variable
_WHOLE_NUMBER = re.compile(r"^[+-]?\d{1,30}$")  # longer digit runs stay text, for validation to refuse


def _from_text(attr: str, text: str) -> object:
    """A variable's text as its field's value; anything unparseable is left for validation to reject."""
    value = text.strip()
    if isinstance(getattr(_DEFAULTS, attr), bool):
        return _BOOLEAN_TEXT.get(value.lower(), value)
    if attr in ("enabled_tools", "disabled_tools"):
        return [name.strip() for name in value.split(",") if name.strip()]
    if attr == "system_prompt":
        return text  # a prompt keeps its own whitespace
    if attr in ("thinking_level", "sandbox"):
        return value.lower()
    if attr == "session_header":
        return value
    return int(value) if _WHOLE_NUMBER.match(value) else value


def _variable(attr: str) -> str:
    return ENV_PREFIX + attr.upper()


_VARIABLES = tuple(_variable(attr) for attr in SETTING_NAMES)


def _variable_settings(env: Mapping[str, str]) -> tuple[dict[str, Any], list[VariableProblem]]:
    """The settings one source of MINI_PROFILE_* variables sets (camelCase), and each bad variable."""
    values = {
        camel_key(attr): _from_text(attr, env[_variable(attr)])
        for attr in SETTING_NAMES
        if env.get(_variable(attr), "").strip()
    }
    problems = []
    if all(key in values for key in _LIST_KEYS):
        enabled, disabled = _variable("enabled_tools"), _variable("disabled_tools")
        del values["disabledTools"]  # reported here; the rest is still checked
        problems.append(
            VariableProblem(disabled, f"{enabled} is set too; set only one, the allowlist or the denylist")
        )
    if not values:  # nothing set: no need to build the model to check nothing
        return {}, []
    from pydantic import ValidationError

    from miniroom.agent.profile_fields import ProfileFields
    from miniroom.config.settings_model import error_message

    try:
        parsed = ProfileFields.model_validate(values)
    except ValidationError as error:
        variable = {camel_key(attr): _variable(attr) for attr in SETTING_NAMES}
        problems += [
            VariableProblem(variable.get(str(item["loc"][0]), "") if item["loc"] else "", error_message(item))
            for item in error.errors()
        ]
    if problems:
        return {}, problems
    return parsed.model_dump(by_alias=True, exclude_none=True), []


def model_variable_problems(
    variables: Mapping[str, str], profiles: Collection[str], profile_file: Path = PROFILE_FILE
) -> list[VariableProblem]:
    """Everything wrong in a model's variables, given the profiles of its project (`profile_file`)."""
    return [
        *_backend_problems(variables.get("AGENT_BACKEND", "").strip(), profiles, profile_file),
        *(
            _unknown_setting(name)
            for name in variables
            if name.startswith(ENV_PREFIX) and name not in _VARIABLES
        ),
        *_variable_settings(variables)[1],
        *_base_url_problems(variables.get("MINI_BASE_URL", "").strip()),
    ]


def _base_url_problems(base_url: str) -> list[VariableProblem]:
    """A base URL no request could go to is caught here, before any agent tries (and retries) it."""
    problem = base_url_problem(base_url) if base_url else None
    return [VariableProblem("MINI_BASE_URL", f"{base_url} {problem}")] if problem else []


def _backend_problems(backend: str, profiles: Collection[str], profile_file: Path) -> list[VariableProblem]:
    try:
        name = profile_name_from_backend(backend)
    except ProfileError as error:
        return [VariableProblem("AGENT_BACKEND", str(error))]
    if name is None or name in profiles:
        return []
    known = ", ".join(sorted(profiles)) or "none"
    message = (
        f"{backend} names the profile '{name}', which {profile_file} does not have (profiles there: "
        f"{known}): name one of those, or add '{name}' to the file"
    )
    return [VariableProblem("AGENT_BACKEND", message)]


def _unknown_setting(name: str) -> VariableProblem:
    hint = did_you_mean(name, _VARIABLES) or f"the settings are {', '.join(_VARIABLES)}"
    return VariableProblem(name, f"is not a profile setting, so nothing reads it ({hint})")


def _raise_for(problems: Sequence[VariableProblem], where: str) -> None:
    if problems:
        raise ProfileError("\n".join(f"{problem.name} {where}: {problem.message}" for problem in problems))


def _merge(
    layers: Sequence[tuple[Source, Mapping[str, Any]]], defaults: ProfileSettings = _DEFAULTS
) -> tuple[dict[str, Any], dict[str, str]]:
    """Lay each source over the ones below it; returns camelCase values and their sources."""
    values = {camel_key(attr): getattr(defaults, attr) for attr in SETTING_NAMES}
    sources = dict.fromkeys(values, "default")
    for source, layer in layers:
        if any(key in layer for key in _LIST_KEYS):
            # A tool list from a higher source replaces BOTH lists below it: an allowlist on the model mixed
            # with a denylist from the profile would be the very "both lists" conflict the rules forbid.
            for key in _LIST_KEYS:
                if values[key] is not None:
                    values[key], sources[key] = None, source
        for key, value in layer.items():
            values[key], sources[key] = value, source
    return values, sources


def _frozen(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def _list_source(attr: str, source: str, name: str | None) -> str:
    if source == "profile":
        return f"profile '{name}' in {PROFILE_FILE}"
    return f"{_variable(attr)} {WHERE[source]}"


def resolve_profile(
    project_dir: Path,
    process_env: Mapping[str, str],
    model_variables: Mapping[str, str] = _NO_VARIABLES,
    *,
    defaults: ProfileSettings = _DEFAULTS,
) -> ResolvedProfile:
    """The settings for an agent of this project and model; raises ProfileError for every hard error.
    `defaults` are the command's own (`serve` sandboxes by default, `run`/`chat` do not)."""
    profile_file = project_dir / PROFILE_FILE
    profiles, problems = read_profiles(profile_file)
    errors = [problem for problem in problems if problem.severity == "error"]
    if errors:
        raise ProfileError("\n".join(str(problem) for problem in errors))
    _raise_for(model_variable_problems(model_variables, profiles, profile_file), WHERE["model"])
    # What the model sets wins, so only the rest of the process environment is checked as its own.
    process_env = {
        name: text for name, text in process_env.items() if not model_variables.get(name, "").strip()
    }
    name = _chosen_profile(model_variables, process_env, profiles)
    warnings: list[str] = []
    env_settings, env_problems = _variable_settings(process_env)
    _raise_for(env_problems, WHERE["env"])
    layers: list[tuple[Source, Mapping[str, Any]]] = [
        ("profile", profiles[name] if name else {}),
        ("env", env_settings),
        ("model", _variable_settings(model_variables)[0]),
    ]
    values, sources = _merge(layers, defaults)
    settings = ProfileSettings(**{attr: _frozen(values[camel_key(attr)]) for attr in SETTING_NAMES})
    if settings.disabled_tools == ():
        warnings.append(
            f"disabledTools from {_list_source('disabled_tools', sources['disabledTools'], name)} is empty, "
            "so it disables nothing: name the tools to disable, or remove the setting."
        )
    for problem in unmet_requirements(settings.enabled_tools or ()):
        where = _list_source("enabled_tools", sources["enabledTools"], name)
        warnings.append(f"enabledTools from {where} {problem}.")
    return ResolvedProfile(name, settings, sources, tuple(warnings))


def _chosen_profile(
    model_variables: Mapping[str, str], process_env: Mapping[str, str], profiles: Collection[str]
) -> str | None:
    """The profile AGENT_BACKEND picks (the model's, checked already, else the process's); ProfileError
    when it names none of the file's."""
    backend = model_variables.get("AGENT_BACKEND", "").strip() or process_env.get("AGENT_BACKEND", "").strip()
    try:
        name = profile_name_from_backend(backend)
    except ProfileError as error:
        raise ProfileError(f"AGENT_BACKEND {WHERE['env']}: {error}") from None
    if name is None or name in profiles:
        return name
    # The built-in defaults allow every tool, bash included: a mistyped name must not widen what runs.
    known = ", ".join(sorted(profiles)) or "none"
    raise ProfileError(
        f"Profile '{name}' (AGENT_BACKEND={backend}) is not in {PROFILE_FILE} (profiles there: {known}): "
        "name one of those, or add it to the file; miniroom does not fall back to the built-in defaults, "
        "which allow every tool."
    )
