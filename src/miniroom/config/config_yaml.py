"""The schema of `config.yaml` (agents, rooms, models, router, bot accounts, Matrix) and its reader.

The file is checked here as far as it can be on its own: shapes, and the references between its sections.
What needs the rest of miniroom (tool names, model names, profiles) is checked by the caller's `checks`;
`miniroom.agent.config_yaml_check` is the loader that adds them.
"""

from __future__ import annotations

import copy as copy_module
import json
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator

from miniroom.config.errors import UserError
from miniroom.config.participation import (
    LlmJudgment,
    MidTurnConfig,
    ParticipationConfig,
    TypesafeJudgment,
)
from miniroom.config.problems import Finding, Problem, Wording, at_most, did_you_mean, findings, key_path
from miniroom.config.secrets import is_secret_name
from miniroom.config.settings_file import SettingsFileError, read_settings_text
from miniroom.config.yaml_source import YamlSource, parse_yaml

__all__ = [
    "DEFAULT_THREAD_MODE",
    "THREAD_MODES",
    "AgentEntry",
    "ConfigCheck",
    "ConfigError",
    "DefaultsConfig",
    "LlmJudgment",
    "MatrixConfig",
    "MidTurnConfig",
    "ModelConfig",
    "ParticipationConfig",
    "RoomConfig",
    "RoomsConfig",
    "RouterConfig",
    "TeamConfig",
    "ThreadMode",
    "TypesafeJudgment",
    "config_error",
    "read_config",
    "validate_config_data",
]

ThreadMode = Literal["thread", "room"]
THREAD_MODES: tuple[ThreadMode, ...] = ("thread", "room")
DEFAULT_THREAD_MODE: ThreadMode = "thread"

_VARIABLE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.S)
_USER_ID = re.compile(r"@[^:\s]+:\S+")
_MAX_PROBLEMS = 20


class ConfigError(UserError, ValueError):
    """`config.yaml` is wrong; the message names the file, line, key and fix of every problem."""

    def __init__(self, message: str, problems: Sequence[Problem] = ()) -> None:
        super().__init__(message)
        self.problems = tuple(problems)  # each problem, for callers that list them one by one


def _user_id(value: str) -> str:
    if _USER_ID.fullmatch(value) is None:
        raise ValueError(f'"{value}" is not a Matrix user ID; write it as @name:server')
    return value


def _variable_line(line: str) -> str:
    if _VARIABLE.fullmatch(line) is None:
        raise ValueError(f'"{line}" is not a NAME=value line (e.g. MINI_MAX_TOKENS=8000)')
    return line


UserId = Annotated[str, AfterValidator(_user_id)]
VariableLine = Annotated[str, AfterValidator(_variable_line)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AgentEntry(_Strict):
    """`agents.<name>`."""

    display_name: str | None = None
    role: str = ""
    instructions: list[str] = Field(default_factory=list)
    model: str | None = None
    tools: list[str] = Field(default_factory=list)
    rooms: list[str] = Field(default_factory=list)
    thread_mode: ThreadMode = DEFAULT_THREAD_MODE
    room_thread_modes: dict[str, ThreadMode] = Field(default_factory=dict)
    participation: ParticipationConfig | None = None
    mid_turn: MidTurnConfig | None = None
    # Appended to the short prompt of every minimal-mode request (`!mode <agent> minimal`).
    minimal_instructions: list[str] = Field(default_factory=list)
    # Tool calls one response may make; calls through miniroom-agent are counted apart from direct ones.
    max_tool_calls_per_turn: int | None = Field(default=None, gt=0)
    # file: MEMORY.md (in its prompt) and memory/ in its working folder, kept across conversations
    memory: Literal["none", "file"] = "none"

    @field_validator("instructions", "minimal_instructions", mode="before")
    @classmethod
    def _one_instruction(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value


TeamMode = Literal["coordinate", "collaborate"]
RESERVED_NAMES = frozenset({"router"})  # the router's own account on Matrix
# An agent's or team's name becomes a user name in rooms (`@helper:miniroom.local`,
# `@miniroom_helper:server`): the characters Matrix and embedded rooms both accept, upper case as lower.
ACCOUNT_NAME = re.compile(r"[A-Za-z0-9._=/-]+")
ACCOUNT_NAME_RULE = "use only letters a-z, digits and . _ = - /"


def account_name_problem(name: str) -> str | None:
    """Why `name` cannot name an agent or a team, or None when it can."""
    if ACCOUNT_NAME.fullmatch(name):
        return None
    suggestion = re.sub(r"[^a-z0-9._=/-]+", "-", name.lower()).strip("-")
    hint = f' (e.g. "{suggestion}")' if suggestion and ACCOUNT_NAME.fullmatch(suggestion) else ""
    return f'"{name}" cannot name an account in a room: {ACCOUNT_NAME_RULE}; rename it{hint}'


class TeamConfig(_Strict):
    """`teams.<name>`: agents answering as one, mentionable like an agent (an account of its own)."""

    display_name: str | None = None
    role: str = ""
    agents: list[str] = Field(default_factory=list)
    mode: TeamMode = "coordinate"  # a lead assigns parts and combines; collaborate: all answer in parallel
    rooms: list[str] = Field(default_factory=list)
    thread_mode: ThreadMode | None = None  # None: the members' mode when they agree, else thread


class RoomConfig(_Strict):
    """`rooms.<key>`."""

    display_name: str | None = None
    alias: str | None = None


class ModelConfig(_Strict):
    """`models.<alias>`: a `provider/id:thinking` name and `NAME=value` variables for the engine."""

    model: str
    variables: list[VariableLine] = Field(default_factory=list)


class RouterConfig(_Strict):
    """`router`: the model that picks one agent for an untagged message."""

    model: str | None = None


class DefaultsConfig(_Strict):
    """`defaults`: values for agents that do not set their own."""

    model: str | None = None


class MatrixConfig(_Strict):
    """`matrix`: where the agents live. Passwords and tokens come from the environment, never from here."""

    homeserver: str
    server_name: str
    registration: Literal["auto", "login"] = "auto"
    invite_from: list[UserId] = Field(default_factory=list)
    # How long an instance's claim on its agents outlives it (renewed every third): a crash frees them then.
    lease_seconds: int = Field(default=60, ge=10, le=3600)

    @field_validator("homeserver")
    @classmethod
    def _url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError(f'"{value}" is not a URL; write it as https://matrix.example.org')
        return value.rstrip("/")


class RoomsConfig(_Strict):
    """The whole `config.yaml`."""

    agents: dict[str, AgentEntry] = Field(default_factory=dict)
    teams: dict[str, TeamConfig] = Field(default_factory=dict)
    rooms: dict[str, RoomConfig] = Field(default_factory=dict)
    models: dict[str, ModelConfig] = Field(default_factory=dict)
    router: RouterConfig = Field(default_factory=RouterConfig)
    bot_accounts: list[UserId] = Field(default_factory=list)
    # A person's main user id -> their other accounts (e.g. bridged ones), which count as the same human.
    human_aliases: dict[UserId, list[UserId]] = Field(default_factory=dict)
    defaults: DefaultsConfig = Field(default_factory=DefaultsConfig)
    matrix: MatrixConfig | None = None

    @field_validator("human_aliases", mode="before")
    @classmethod
    def _one_alias(cls, value: object) -> object:
        if isinstance(value, Mapping):
            return {person: [alias] if isinstance(alias, str) else alias for person, alias in value.items()}
        return value

    def model_entry(self, alias: object) -> ModelConfig:
        """`models.<alias>`; UnknownModel when there is none (or `alias` is no text, as JSON may send)."""
        if not isinstance(alias, str) or alias not in self.models:
            raise UnknownModel(alias, ", ".join(sorted(self.models)) or "none")
        return self.models[alias]


class UnknownModel(LookupError):
    """config.yaml has no model `alias`; `known` names the models it has ("none" without any)."""

    def __init__(self, alias: object, known: str) -> None:
        super().__init__(f"no model {alias!r} (models: {known})")
        self.alias, self.known = alias, known


ConfigCheck = Callable[[RoomsConfig], list[Finding]]  # a check of a valid shape: what is wrong, where


def read_config(path: Path, checks: Sequence[ConfigCheck] = ()) -> tuple[RoomsConfig, YamlSource]:
    """The validated config and the file it came from (to locate later checks); ConfigError names the file,
    line, key and fix of every problem."""
    try:
        parsed = parse_yaml(read_settings_text(path), path)
    except FileNotFoundError:
        missing = Problem(path, None, "", "no such file; pass --config or set MINIROOM_CONFIG")
        raise config_error([missing], str(path)) from None
    except SettingsFileError as exc:
        raise config_error([exc.problem], str(path)) from None
    if parsed.duplicates:
        message = "appears twice (first on line {}); keep one"
        twice = [
            Problem(path, d.line, key_path(d.loc), message.format(d.first_line)) for d in parsed.duplicates
        ]
        raise config_error(twice, str(path))
    return validate_config_data(parsed.data, checks, source=str(path), parsed=parsed), parsed


def validate_config_data(
    data: object,
    checks: Sequence[ConfigCheck] = (),
    *,
    source: str = "config.yaml",
    parsed: YamlSource | None = None,
) -> RoomsConfig:
    """Validate parsed `config.yaml` data: its shape, then the references between sections and `checks`.

    `parsed`, the file the data came from, gives each problem its line.
    """
    if data is None:
        data = {}
    try:
        config = RoomsConfig.model_validate(data)
    except ValidationError as exc:
        found = findings(exc, RoomsConfig, _WORDING, parsed.written.get if parsed else None)
        # the rest of the file is still checked, as if the wrong values were not there: one pass finds all
        rest = _without(data, [error["loc"] for error in exc.errors()])
        found += _checks_of(rest, checks) if rest is not None else []
        raise config_error(_locate(found, source, parsed), source) from None
    problems = cross_check(config) + [finding for check in checks for finding in check(config)]
    if problems:
        raise config_error(_locate(problems, source, parsed), source)
    return config


def _without(data: object, locs: Sequence[tuple[int | str, ...]]) -> object | None:
    """A copy of `data` without the values at `locs` (None when one cannot be left out)."""
    copy = copy_module.deepcopy(data)
    for loc in locs:
        if not loc:
            return None
        *parents, last = loc
        holder = copy
        for part in parents:
            holder = holder.get(part) if isinstance(holder, dict) else None
        if not isinstance(holder, dict) or last not in holder:
            return None
        del holder[last]
    return copy


def _checks_of(data: object, checks: Sequence[ConfigCheck]) -> list[Finding]:
    """The cross-section problems of data whose shape is otherwise right; none when it is not."""
    try:
        config = RoomsConfig.model_validate(data)
    except ValidationError:
        return []
    return cross_check(config) + [finding for check in checks for finding in check(config)]


def cross_check(config: RoomsConfig) -> list[Finding]:
    """References between sections: every room key and model alias an entry names must exist."""
    problems: list[Finding] = []
    models = _Names("model alias", "models", config.models)
    rooms = _Names("room", "rooms", config.rooms)
    for name, agent in config.agents.items():
        where = ("agents", name)
        problems += models.check((*where, "model"), agent.model, f'agent "{name}"')
        for index, room in enumerate(agent.rooms):
            problems += rooms.check((*where, "rooms", index), room, f'agent "{name}"')
        for section, judgment in judgments(agent):
            if isinstance(judgment, LlmJudgment):
                path = (*where, section, "judgment", "model")
                problems += models.check(path, judgment.model, f'agent "{name}"')
    for section, names in (("agents", config.agents), ("teams", config.teams)):
        for name in names:
            problem = account_name_problem(name)
            if problem is not None:
                problems.append(Finding((section, name), problem, at_key=True))
    problems += models.check(("router", "model"), config.router.model, "the router")
    problems += models.check(("defaults", "model"), config.defaults.model, "defaults")
    return problems + _team_problems(config, rooms) + _alias_problems(config)


def judgments(agent: AgentEntry) -> list[tuple[str, LlmJudgment | TypesafeJudgment]]:
    """The agent's judgment backends by section (`participation`, `mid_turn`)."""
    sections = (("participation", agent.participation), ("mid_turn", agent.mid_turn))
    return [(name, entry.judgment) for name, entry in sections if entry is not None and entry.judgment]


def _team_problems(config: RoomsConfig, rooms: _Names) -> list[Finding]:
    """A team has members that are configured agents, its rooms exist, and its name is free."""
    problems: list[Finding] = []
    agents = _Names("agent", "agents", config.agents)
    for name, team in config.teams.items():
        where, user = ("teams", name), f'team "{name}"'
        if name in config.agents or name in RESERVED_NAMES:
            taken = "an agent's name" if name in config.agents else "the router's account"
            message = f"is also {taken}; a team gets an account of its own (@miniroom_{name}): rename it"
            problems.append(Finding(where, message, at_key=True))
        if not team.agents:
            problems.append(Finding((*where, "agents"), "a team needs at least one agent; list them here"))
        for index, member in enumerate(team.agents):
            problems += agents.check((*where, "agents", index), member, user)
            if member in team.agents[:index]:
                problems.append(Finding((*where, "agents", index), f'"{member}" is listed twice; keep one'))
        for index, room in enumerate(team.rooms):
            problems += rooms.check((*where, "rooms", index), room, user)
    return problems


def _alias_problems(config: RoomsConfig) -> list[Finding]:
    """Each account belongs to one person, is not a person's main id too, and is not a bot account."""
    problems: list[Finding] = []
    owner: dict[str, str] = {}
    bots = frozenset(config.bot_accounts)
    for person, aliases in config.human_aliases.items():
        if person in bots:
            message = f'"{person}" is in bot_accounts, which never count as people; remove it from one'
            problems.append(Finding(("human_aliases", person), message, at_key=True))
        for index, alias in enumerate(aliases):
            loc = ("human_aliases", person, index)
            if alias == person:
                problem = "is the person's own id; list only their other accounts"
            elif alias in config.human_aliases:
                problem = (
                    "has aliases of its own under human_aliases; list all of a person's accounts under one id"
                )
            elif alias in owner:
                problem = f'is already an alias of "{owner[alias]}"; an account belongs to one person'
            elif alias in bots:
                problem = "is in bot_accounts, which never count as people; remove it from one"
            else:
                owner[alias] = person
                continue
            problems.append(Finding(loc, f'"{alias}" {problem}'))
    return problems


class _Names:
    """The keys of one section, to check references against."""

    def __init__(self, what: str, section: str, entries: Mapping[str, object]) -> None:
        self.what, self.section, self.known = what, section, list(entries)

    def check(self, loc: tuple[str | int, ...], name: str | None, user: str) -> list[Finding]:
        if name is None or name in self.known:
            return []
        defined = ", ".join(self.known) if self.known else "none yet"
        hint = did_you_mean(name, self.known)
        message = f'{user} names {self.what} "{name}", but {self.section}: defines no such entry'
        message += f" ({hint})" if hint else f" (defined: {defined})"
        return [Finding(loc, message)]


def _locate(found: Sequence[Finding], source: str, parsed: YamlSource | None) -> list[Problem]:
    """Each finding with its line: the value's, or the key's for an unknown key."""
    return [
        Problem(
            source, parsed.line_of(f.loc, at_key=f.at_key) if parsed else None, key_path(f.loc), f.message
        )
        for f in found
    ]


def config_error(problems: Sequence[Problem], source: str) -> ConfigError:
    """The error for these problems: one `file:line: key.path: message` line each, in line order."""
    ordered = sorted(problems, key=lambda problem: problem.line or 0)
    lines = [str(problem) for problem in ordered]
    more = at_most(lines, _MAX_PROBLEMS, lambda count: f"{source}: … and {count} more problems")
    return ConfigError("\n".join(more), ordered)


def _unknown_key(key: str, allowed: Sequence[str]) -> str:
    if is_secret_name(key):
        return "unknown key: passwords and tokens do not belong in config.yaml; set them in the environment"
    hint = did_you_mean(key, allowed)
    if hint:
        return f"unknown key ({hint})"
    return f"unknown key; the keys allowed here are: {', '.join(allowed)}" if allowed else "unknown key"


def _short(value: object) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


_WORDING = Wording(
    unknown_key=_unknown_key,
    words={
        "mapping": "must be a mapping (indented key: value lines)",
        "list": "must be a list (lines starting with -)",
    },
    got=" (got {got})",
    show=_short,
    exact={
        "union_tag_invalid": "provider must be one of {expected_tags} (got {tag!r})",
        "union_tag_not_found": "needs a {discriminator} key",
    },
)
