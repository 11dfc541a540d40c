"""`.miniroom/mcp.yml`: the MCP servers a project's agents connect to, read, validated and expanded.

    servers:
      files: {type: stdio, command: npx, args: ["-y", "@modelcontextprotocol/server-filesystem", "."]}
      docs:  {type: http, url: "https://mcp.example.com/mcp", headers: {Authorization: "Bearer ${TOKEN}"}}
      old:   {type: sse, url: "http://127.0.0.1:9000/sse", enabled: false}

Claude Code's `.mcp.json` entries in YAML, with two differences: `timeout` is in seconds (as every timeout in
miniroom's settings), and a server may say `enabled: false`. As there, `type` may be left out for a stdio
server and `streamable-http` is another word for `http`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, ValidationError

from miniroom.config.expand import expand_all
from miniroom.config.paths import MCP_FILE
from miniroom.config.problems import Problem, describe_value, invalid
from miniroom.config.settings_file import SettingsFileError
from miniroom.config.settings_model import (
    OptionalPositiveWhole,
    ProcessText,
    SettingsModel,
    keyed_section,
    validation_problems,
)
from miniroom.config.yaml_source import YamlSource, load_yaml
from miniroom.mcp.names import server_name_problem

ServerType = Literal["stdio", "http", "sse"]
_TYPE_WORDS = {"stdio": "stdio", "http": "http", "streamable-http": "http", "sse": "sse"}
_EMPTY: Mapping[str, str] = MappingProxyType({})
NonEmpty = Annotated[str, Field(min_length=1)]


def _checked_url(url: str) -> str:
    if "$" in url or url.startswith(("http://", "https://")):
        return url
    raise invalid("must be an http:// or https:// address, got {got}", got=describe_value(url))


Url = Annotated[NonEmpty, AfterValidator(_checked_url)]


class StdioFields(SettingsModel):
    type: Literal["stdio"] = "stdio"
    command: Annotated[ProcessText, Field(min_length=1)]
    args: list[ProcessText] | None = None
    env: dict[ProcessText, ProcessText] | None = None
    enabled: bool | None = None
    timeout: OptionalPositiveWhole = None


class RemoteFields(SettingsModel):
    type: Literal["http", "streamable-http", "sse"]
    url: Url
    headers: dict[str, str] | None = None
    enabled: bool | None = None
    timeout: OptionalPositiveWhole = None


@dataclass(frozen=True)
class ServerEntry:
    """One server as written (`url` and every text before `$VAR` expansion, until `expanded`)."""

    name: str
    type: ServerType
    command: str = ""
    args: tuple[str, ...] = ()
    # Never in a repr: once expanded, these and `url` may hold secrets.
    env: Mapping[str, str] = field(default_factory=lambda: _EMPTY, repr=False)
    url: str = field(default="", repr=False)
    headers: Mapping[str, str] = field(default_factory=lambda: _EMPTY, repr=False)
    enabled: bool = True
    timeout: float | None = None  # seconds a call may take; None: the profile's toolCallTimeout
    shown_url: str = ""  # the url as written, for messages: an expanded one may hold a secret


def _schema(raw: dict[Any, Any]) -> tuple[type[StdioFields | RemoteFields], str | None]:
    """The schema of a server's fields by its `type`, and what is wrong with the `type` if anything is; for a
    wrong one, the schema the other keys suggest (a `url`: a remote server), so they are checked too."""
    written = raw.get("type")
    guess = RemoteFields if "url" in raw else StdioFields
    if written is None:
        if "url" in raw:
            return guess, "a server with a url needs `type: http` (streamable HTTP) or `type: sse`"
        return StdioFields, None
    kind = _TYPE_WORDS.get(written) if isinstance(written, str) else None
    if kind is None:
        return guess, f"must be one of stdio, http, sse (or streamable-http), got {describe_value(written)}"
    return (StdioFields if kind == "stdio" else RemoteFields), None


def _entry(name: str, fields: StdioFields | RemoteFields) -> ServerEntry:
    enabled, timeout = fields.enabled is not False, fields.timeout
    if isinstance(fields, StdioFields):
        env = MappingProxyType(dict(fields.env or {}))
        args = tuple(fields.args or ())
        return ServerEntry(name, "stdio", fields.command, args, env, enabled=enabled, timeout=timeout)
    kind: ServerType = "sse" if fields.type == "sse" else "http"
    headers = MappingProxyType(dict(fields.headers or {}))
    return ServerEntry(
        name, kind, url=fields.url, headers=headers, enabled=enabled, timeout=timeout, shown_url=fields.url
    )


def _server(source: YamlSource, key: Any, raw: Any, problems: list[Problem]) -> ServerEntry | None:
    """The entry, or None with every problem it has added to `problems`: its name's, type's and fields'."""
    loc = ("servers", str(key))
    found: list[Problem] = []
    name_problem = server_name_problem(key)
    if name_problem:
        found.append(source.problem(loc, name_problem))
    if not isinstance(raw, dict):
        found.append(
            source.problem(loc, f"must be a mapping of the server's settings, got {describe_value(raw)}")
        )
        problems.extend(found)
        return None
    schema, type_problem = _schema(raw)
    if type_problem:
        found.append(source.problem((*loc, "type"), type_problem))
        # The type is reported above: the other keys are checked against the schema they suggest.
        raw = {**raw, "type": "http" if schema is RemoteFields else "stdio"}
    try:
        fields = schema.model_validate(raw)
    except ValidationError as error:
        problems.extend([*found, *validation_problems(source, error, schema, loc)])
        return None
    problems.extend(found)
    return None if found else _entry(str(key), fields)


def read_servers(path: Path) -> tuple[tuple[ServerEntry, ...], list[Problem]]:
    """The servers the file sets (disabled ones too), and every problem in it; with any error, none."""
    try:
        source = load_yaml(path)
    except SettingsFileError as error:
        return (), [error.problem]
    problems = list(source.problems)
    mapping = keyed_section(source, "servers", "server", problems)
    entries = [_server(source, key, raw, problems) for key, raw in mapping.items()]
    if any(problem.severity == "error" for problem in problems):
        return (), problems
    return tuple(entry for entry in entries if entry), problems


def check_mcp_file(path: Path) -> list[Problem]:
    """Everything wrong in an mcp.yml, with line numbers (for `config check`)."""
    return read_servers(path)[1]


def load_servers(project_dir: Path) -> tuple[tuple[ServerEntry, ...], list[Problem]]:
    """The project's servers (none without a file) and the file's problems."""
    path = project_dir / MCP_FILE
    return read_servers(path) if path.exists() else ((), [])


def expanded(
    entry: ServerEntry, variables: Mapping[str, str], environ: Mapping[str, str]
) -> tuple[ServerEntry, list[str]]:
    """The entry with `$NAME`, `${NAME}` and `${NAME:-default}` filled in its command, args, env, url and
    headers (the model's variables first, then the environment); a warning for each name left as written."""
    texts = {
        "command": entry.command,
        "args": list(entry.args),
        "env": dict(entry.env),
        "url": entry.url,
        "headers": dict(entry.headers),
    }
    filled, warnings = expand_all(texts, variables, environ)
    assert isinstance(filled, dict)
    result = replace(
        entry,
        command=filled["command"],
        args=tuple(filled["args"]),
        env=MappingProxyType(filled["env"]),
        url=filled["url"],
        headers=MappingProxyType(filled["headers"]),
    )
    return result, [f"{MCP_FILE}: servers.{entry.name}: {warning}" for warning in warnings]
