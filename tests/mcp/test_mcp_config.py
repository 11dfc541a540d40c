"""mcp.yml read and validated: every mistake named with its line and key, and `$VAR` expansion."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.mcp.config import check_mcp_file, expanded, read_servers
from tests.agent_runs import write_settings

VALID = """\
servers:
  files: {type: stdio, command: npx, args: ["-y", "@modelcontextprotocol/server-filesystem", "."]}
  docs:
    type: http
    url: "https://mcp.example.com/mcp"
    headers: {Authorization: "Bearer ${DOCS_TOKEN}"}
  legacy: {type: sse, url: "http://127.0.0.1:9000/sse", enabled: false}
  plain: {command: ./server, timeout: 20}
  modern: {type: streamable-http, url: "http://localhost/mcp"}
"""


def write(tmp_path: Path, text: str) -> Path:
    return write_settings(tmp_path, "mcp.yml", text)


def test_the_issues_example_reads_as_written(tmp_path: Path) -> None:
    servers, problems = read_servers(write(tmp_path, VALID))
    assert problems == []
    by_name = {entry.name: entry for entry in servers}
    assert [(e.name, e.type, e.enabled) for e in servers] == [
        ("files", "stdio", True),
        ("docs", "http", True),
        ("legacy", "sse", False),
        ("plain", "stdio", True),
        ("modern", "http", True),
    ]
    assert by_name["files"].args == ("-y", "@modelcontextprotocol/server-filesystem", ".")
    assert by_name["docs"].headers == {"Authorization": "Bearer ${DOCS_TOKEN}"}
    assert by_name["plain"].timeout == 20


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("servers:\n  a: {url: 'http://x'}\n",
         "2: servers.a.type: a server with a url needs `type: http` (streamable HTTP) or `type: sse`"),
        ("servers:\n  a: {type: ws, url: 'ws://x'}\n",
         '2: servers.a.type: must be one of stdio, http, sse (or streamable-http), got "ws"'),
        ("servers:\n  a: {type: stdio, command: x, url: 'http://x'}\n",
         "2: servers.a.url: unknown key: the valid keys are type, command, args, env, enabled, timeout"),
        ("servers:\n  a:\n    type: http\n    url: http://x\n    comand: y\n",
         "5: servers.a.comand: unknown key: the valid keys are type, url, headers, enabled, timeout"),
        ("servers:\n  a: {type: http, url: 'ftp://x'}\n",
         '2: servers.a.url: must be an http:// or https:// address, got "ftp://x"'),
        ("servers:\n  a: {type: http}\n", "2: servers.a.url: is required: add it"),
        ("servers:\n  a: {args: [x]}\n", "2: servers.a.command: is required: add it"),
        ("servers:\n  a:\n    command: x\n    env: {PORT: 8080}\n",
         "4: servers.a.env.PORT: must be text, got 8080"),
        ('servers:\n  a:\n    command: x\n    args: [-c, "a\\0b"]\n',
         "4: servers.a.args[1]: holds a NUL character (\\0), which no command, argument or variable "),
        ('servers:\n  a:\n    command: x\n    env: {KEY: "a\\0"}\n',
         "4: servers.a.env.KEY: holds a NUL character (\\0)"),
        ("servers:\n  a: {command: x, timeout: 0}\n",
         "2: servers.a.timeout: must be a whole number above zero, got 0"),
        ("servers:\n  a: {command: x, enabled: maybe}\n", '2: servers.a.enabled: must be true or false'),
        ("servers:\n  a__b: {command: x}\n", "2: servers.a__b: 'a__b' cannot name a server"),
        ("servers:\n  off: {command: x}\n",
         "2: servers.False: YAML reads this server name as false, not as text: put the name in quotes"),
        ("servers:\n  a: just-a-command\n",
         '2: servers.a: must be a mapping of the server\'s settings, got "just'),
        ("servers: [a]\n", "1: servers: must be a mapping of server names to settings, got a list"),
        ("mcpServers: {}\n", "1: mcpServers: unknown key: the file holds only `servers:` at its root"),
        ("- a\n", "1: the file must be a mapping with a `servers:` key, got a list"),
        ("servers:\n  a: {command: x}\n  a: {command: y}\n",
         "3: servers.a: is written twice (lines 2 and 3); YAML keeps only the last: delete one"),
    ],
)  # fmt: skip
def test_each_mistake_is_named_with_its_line_and_key(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    problems = [str(problem) for problem in check_mcp_file(path)]
    assert any(problem.startswith(f"{path}:{message}") for problem in problems), problems
    assert read_servers(path)[0] == ()  # a file with an error sets no server


def test_expansion_fills_command_args_env_url_and_headers(tmp_path: Path) -> None:
    text = (
        "servers:\n"
        "  a: {command: '${BIN:-npx}', args: ['$ROOT'], env: {KEY: '${KEY}'}}\n"
        "  b: {type: http, url: '${BASE}/mcp', headers: {Authorization: 'Bearer ${TOKEN}'}}\n"
    )
    (stdio, http), _ = read_servers(write(tmp_path, text))
    variables = {"TOKEN": "from-the-model"}
    environ = {"ROOT": "/srv", "KEY": "k1", "BASE": "https://docs.example", "TOKEN": "from-env"}
    filled, warnings = expanded(stdio, variables, environ)
    assert (filled.command, filled.args, dict(filled.env), warnings) == ("npx", ("/srv",), {"KEY": "k1"}, [])
    filled, _ = expanded(http, variables, environ)
    assert filled.url == "https://docs.example/mcp"
    assert dict(filled.headers) == {"Authorization": "Bearer from-the-model"}
    assert filled.shown_url == "${BASE}/mcp"  # messages show what was written, never a filled-in secret
    assert "from-the-model" not in repr(filled)


def test_an_unset_variable_stays_with_a_warning_naming_the_server(tmp_path: Path) -> None:
    (entry,), _ = read_servers(write(tmp_path, "servers:\n  a: {command: x, args: ['$MISSING']}\n"))
    filled, warnings = expanded(entry, {}, {})
    assert filled.args == ("$MISSING",)
    assert warnings == [
        ".miniroom/mcp.yml: servers.a: $MISSING is not set in the model's variables nor in the environment, "
        "and has no default, so it stays as written: set MISSING, or write ${MISSING:-default}"
    ]


def test_every_mistake_of_one_server_is_reported_at_once(tmp_path: Path) -> None:
    text = (
        "servers:\n"
        "  docs:\n"
        "    type: http\n"
        "    url: ftp://x\n"
        "    headers: {Authorization: 5}\n"
        "  bad__name: {command: x, timeout: 0}\n"
        "  guess: {type: ws, url: 'ws://x', enabled: maybe}\n"
        "  nourl: {url: 'ftp://y', comand: z}\n"
    )
    path = write(tmp_path, text)
    assert [problem.detail() for problem in check_mcp_file(path)] == [
        'line 4: servers.docs.url: must be an http:// or https:// address, got "ftp://x"',
        'line 5: servers.docs.headers.Authorization: must be text, got 5 — write "5" in quotes',
        "line 6: servers.bad__name: 'bad__name' cannot name a server: use letters, digits, '-' and single "
        "'_' (its tools are named mcp__<server>__<tool>, so `__` would be ambiguous), starting with a letter "
        "or digit, at most 40 characters",
        "line 6: servers.bad__name.timeout: must be a whole number above zero, got 0",
        'line 7: servers.guess.type: must be one of stdio, http, sse (or streamable-http), got "ws"',
        'line 7: servers.guess.url: must be an http:// or https:// address, got "ws://x"',
        'line 7: servers.guess.enabled: must be true or false, got "maybe"',
        "line 8: servers.nourl.type: a server with a url needs `type: http` (streamable HTTP) or `type: sse`",
        'line 8: servers.nourl.url: must be an http:// or https:// address, got "ftp://y"',
        "line 8: servers.nourl.comand: unknown key: the valid keys are type, url, headers, enabled, timeout",
    ]
    assert read_servers(path)[0] == ()
