"""`miniroom-agent`: the agent's other tools, called from inside its shell commands through miniroom's API.

Argument parsing is by hand and `json` is imported only where a command needs it: `argparse`, `re` and `json`
would each cost a good part of the start-up budget (1.5x a bare interpreter) of `--help` and `tools list`.
"""

from __future__ import annotations

import os
import sys

from miniroom.agent_cli.http import Answer, Interrupted, Unreachable, request

URL_VARIABLE = "MINIROOM_AGENT_URL"  # given to each shell command with its grant (tools.environment)
TOKEN_VARIABLE = "MINIROOM_AGENT_TOKEN"
PRIMARY_URL_VARIABLE = "MINIROOM_AGENT_CLI_PRIMARY_URL"  # a worker's way to miniroom, when set
SOCKET_VARIABLE = "MINIROOM_AGENT_SOCKET"  # in a sandbox without network: the relay to the URL
API = "/api/agent/"
STATUS_HEADER = "miniroom-call-status"
DEFAULT_WAIT = 30.0
REQUEST_SECONDS = 60.0  # for the answer to come, beyond any wait the request asks the server for
OK, FAILED, USAGE, PENDING, UNKNOWN, UNREACHABLE = 0, 1, 2, 3, 4, 5
PENDING_STATUSES = ("queued", "running", "waiting")

EXIT_CODES = """\
exit codes:
  0  success
  1  the tool ran and failed (the receipt holds its error)
  2  usage: a bad command line or arguments, or a request miniroom refused as wrong (unknown tool,
     call id reused with other arguments)
  3  the call is still queued, running or waiting after the wait; it goes on: calls wait CALL_ID
  4  the outcome is unknown: the call was sent but no answer came back; check it with calls get CALL_ID
     before you submit it again, or a side effect may happen twice
  5  miniroom cannot be reached, refused the grant (outside an agent's shell, or after its response
     ended), or is at a limit (1024 calls a response, 64 at once)"""
HELP = f"""\
usage: miniroom-agent COMMAND ...

Call the agent's other tools from its shell commands. Tool names are TOOLKIT FUNCTION or TOOLKIT.FUNCTION.

commands:
  tools list                          every tool you can call, by toolkit
  tools search QUERY                  tools ranked by how well name and description match
  tools describe TOOLKIT FUNCTION     a tool's description and parameters
  tools call TOOLKIT FUNCTION [JSON]  call a tool; prints its receipt (call id, status, outcome)
  calls get CALL_ID                   a call's receipt now
  calls wait CALL_ID                  a call's receipt once it ended (or after --timeout)
  context list                        the documents you can read: instructions, context files
  context read NAME                   read a document, a page at a time

`miniroom-agent COMMAND ... --help` shows a command's options. Output is JSON; errors are JSON on stderr.
Scripts using set -e must handle exit code 3 themselves.

{EXIT_CODES}

environment: {URL_VARIABLE} and {TOKEN_VARIABLE} (set in each shell command of a response),
{PRIMARY_URL_VARIABLE} (used instead of {URL_VARIABLE} when set)."""

ARGUMENTS_HELP = """\
arguments (at most one of these; they must be a JSON object; none sends {}):
  JSON                 a final argument: tools call files read '{"path": "README.md"}'
  --json JSON          the same as an option
  --json-file FILE     read them from a file
  --json-stdin         read them from standard input"""
# Each command: (positional arguments (least, most), options taking a value, flags, usage, help)
COMMANDS: dict[tuple[str, str], tuple[tuple[int, int], tuple[str, ...], tuple[str, ...], str, str]] = {
    ("tools", "list"): ((0, 0), (), (), "tools list", "Every tool you can call, by toolkit."),
    ("tools", "search"): (
        (1, 99),
        ("--limit",),
        (),
        "tools search QUERY [--limit N]",
        "Tools ranked by how well their names and descriptions match QUERY (at most N, default 10).",
    ),
    ("tools", "describe"): (
        (1, 2),
        (),
        (),
        "tools describe TOOLKIT FUNCTION  (or TOOLKIT.FUNCTION)",
        "A tool's description and parameters (JSON Schema). A schema too large to print comes as a\n"
        "context name: read it with context read.",
    ),
    ("tools", "call"): (
        (1, 3),
        ("--json", "--json-file", "--call-id", "--timeout"),
        ("--json-stdin",),
        "tools call TOOLKIT FUNCTION [JSON] [--call-id UUID] [--timeout SECONDS]",
        "Call a tool and print its receipt: call id, status (queued, running, waiting, succeeded,\n"
        "failed) and, once it ended, its outcome. Waits up to 30 seconds for it to end (--timeout;\n"
        "--timeout 0 returns at once); a call still going on exits with 3 and keeps running.\n"
        "--call-id fixes the id before submission: the same id with the same tool and arguments joins\n"
        "the call already made, with other arguments it is refused. A long result comes as a preview\n"
        "with the workspace file holding all of it; images reach you with the shell command's result.\n\n"
        + ARGUMENTS_HELP,
    ),
    ("calls", "get"): ((1, 1), (), (), "calls get CALL_ID", "A call's receipt as it stands now."),
    ("calls", "wait"): (
        (1, 1),
        ("--timeout",),
        (),
        "calls wait CALL_ID [--timeout SECONDS]",
        "Wait until the call ended (at most 30 seconds, or --timeout) and print its receipt; a call\n"
        "still going on exits with 3. Reaching the timeout does not stop the call.",
    ),
    ("context", "list"): (
        (0, 0),
        (),
        (),
        "context list",
        "The documents you can read: your instructions and the project's context files.",
    ),
    ("context", "read"): (
        (1, 1),
        ("--offset", "--limit"),
        (),
        "context read NAME [--offset N] [--limit N]",
        "N characters (default 8000) of a document from --offset on; `next_offset` says where the next\n"
        "page starts. NAME comes from context list (or tools describe), never a file path.",
    ),
}


class Usage(Exception):
    """A command line or argument mistake: exit code 2, with the command's usage."""


SIGPIPE_EXIT = 141  # as a shell reports a program whose reader went away (`| head -1`)


def main(argv: list[str] | None = None) -> int:
    try:
        return _main(sys.argv[1:] if argv is None else argv)
    except BrokenPipeError:
        # Nobody reads the output any more: stop quietly, with stdout on /dev/null for the final flush.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return SIGPIPE_EXIT


def _main(args: list[str]) -> int:
    if not args or args[0] in ("-h", "--help", "help"):
        print(HELP)
        return OK if args else USAGE
    key = (args[0], args[1]) if len(args) > 1 else (args[0], "")
    if key not in COMMANDS:
        return _group_help(args[0], args[1:])
    (least, most), valued, flags, usage, text = COMMANDS[key]
    rest = args[2:]
    if "--help" in rest or "-h" in rest:
        print(f"usage: miniroom-agent {usage}\n\n{text}\n\n{EXIT_CODES}")
        return OK
    try:
        positionals, options = _parse(rest, valued, flags)
        if not least <= len(positionals) <= most:
            raise Usage(f"expected {_count(least, most)}, got {len(positionals)}")
        return _run(key, positionals, options)
    except Usage as problem:
        return _error(USAGE, f"{problem}; usage: miniroom-agent {usage}")


def _group_help(group: str, rest: list[str]) -> int:
    actions = [action for (name, action) in COMMANDS if name == group]
    if not actions:
        return _error(USAGE, f"unknown command {group!r}; miniroom-agent --help lists the commands")
    usages = "\n".join(f"  miniroom-agent {COMMANDS[(group, action)][3]}" for action in actions)
    if rest and rest[0] not in ("-h", "--help"):
        return _error(USAGE, f"unknown command {group} {rest[0]!r}; use one of: {', '.join(actions)}")
    print(f"usage:\n{usages}")
    return OK if rest else USAGE


def _count(least: int, most: int) -> str:
    return f"{least} argument(s)" if least == most else f"{least} to {most} arguments"


def _parse(
    rest: list[str], valued: tuple[str, ...], flags: tuple[str, ...]
) -> tuple[list[str], dict[str, str]]:
    positionals: list[str] = []
    options: dict[str, str] = {}
    index = 0
    while index < len(rest):
        word = rest[index]
        name, equals, value = word.partition("=")
        if word == "--":
            positionals += rest[index + 1 :]
            break
        if name in valued:
            if not equals:
                index += 1
                if index >= len(rest):
                    raise Usage(f"{name} needs a value")
                value = rest[index]
            options[name] = value
        elif word in flags:
            options[word] = ""
        elif word.startswith("--") and len(word) > 2:
            known = ", ".join((*valued, *flags)) or "none"
            raise Usage(f"unknown option {name} (this command takes: {known})")
        else:
            positionals.append(word)
        index += 1
    return positionals, options


def _run(key: tuple[str, str], positionals: list[str], options: dict[str, str]) -> int:
    if key == ("tools", "list"):
        return _get(API + "tools")
    if key == ("tools", "search"):
        limit = _whole(options.get("--limit", "10"), "--limit")
        return _get(f"{API}tools/search?q={_quote(' '.join(positionals))}&limit={limit}")
    if key == ("tools", "describe"):
        return _get(API + "tools/" + _quote(_tool(positionals, 2)))
    if key == ("tools", "call"):
        return _call(positionals, options)
    if key == ("calls", "get"):
        return _get(f"{API}calls/{_quote(positionals[0])}")
    if key == ("calls", "wait"):
        wait = _seconds(options.get("--timeout"))
        return _get(f"{API}calls/{_quote(positionals[0])}/wait?timeout={wait:g}", wait)
    if key == ("context", "list"):
        return _get(API + "context")
    offset = _whole(options.get("--offset", "0"), "--offset")
    limit = _whole(options.get("--limit", "8000"), "--limit")
    return _get(f"{API}context/{_quote(positionals[0], '/')}?offset={offset}&limit={limit}")


def _tool(positionals: list[str], most: int) -> str:
    """TOOLKIT.FUNCTION from `files.read` or `files read`; more words than `most` allows are refused."""
    if "." in positionals[0]:
        return positionals[0]
    if len(positionals) < 2:
        raise Usage(f"{positionals[0]!r} names a toolkit only: add the function, e.g. files read")
    return f"{positionals[0]}.{positionals[1]}"


def _whole(text: str, option: str) -> int:
    if not text.isdigit():
        raise Usage(f"{option} must be a whole number, not {text!r}")
    return int(text)


def _seconds(text: str | None) -> float:
    if text is None:
        return DEFAULT_WAIT
    try:
        value = float(text)
    except ValueError:
        raise Usage(f"--timeout must be a number of seconds, not {text!r}") from None
    if not 0 <= value < float("inf"):
        raise Usage(f"--timeout must be 0 or more seconds, not {text!r}")
    return value


def _call(positionals: list[str], options: dict[str, str]) -> int:
    import json

    qualified = _tool(positionals, 2)
    inline = positionals[1:] if "." in positionals[0] else positionals[2:]
    if len(inline) > 1:
        raise Usage(f"one JSON object of arguments at most, got {len(inline)} more words")
    raw = _arguments_text(inline[0] if inline else None, options)
    try:
        arguments = json.loads(raw)
    except ValueError as error:
        raise Usage(f"the arguments are not JSON ({error})") from None
    if not isinstance(arguments, dict):
        raise Usage(
            f'the arguments must be a JSON object such as {{"path": "x"}}, not {type(arguments).__name__}'
        )
    call_id = options.get("--call-id") or _new_uuid()
    wait = _seconds(options.get("--timeout"))
    body = {"tool": qualified, "arguments": arguments, "call_id": call_id, "wait": wait}
    return _send("POST", API + "calls", json.dumps(body).encode(), wait, call_id=call_id)


def _arguments_text(inline: str | None, options: dict[str, str]) -> str:
    given: list[str] = [name for name in ("--json", "--json-file", "--json-stdin") if name in options]
    if inline is not None:
        given.insert(0, "a final JSON argument")
    if len(given) > 1:
        raise Usage(f"give the arguments one way only, not {' and '.join(given)}")
    if inline is not None:
        return inline
    if "--json" in options:
        return options["--json"]
    if "--json-file" in options:
        try:
            with open(options["--json-file"], encoding="utf-8") as file:
                return file.read()
        except (OSError, UnicodeDecodeError) as error:
            raise Usage(f"cannot read --json-file {options['--json-file']}: {error}") from None
    if "--json-stdin" in options:
        return sys.stdin.read()
    return "{}"


def _new_uuid() -> str:
    """A random (version 4) UUID, without the `uuid` module's import time."""
    data = bytearray(os.urandom(16))
    data[6] = (data[6] & 0x0F) | 0x40
    data[8] = (data[8] & 0x3F) | 0x80
    text = data.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def _get(target: str, wait: float = 0.0) -> int:
    return _send("GET", target, b"", wait)


def _send(method: str, target: str, body: bytes, wait: float, call_id: str | None = None) -> int:
    url = os.environ.get(PRIMARY_URL_VARIABLE) or os.environ.get(URL_VARIABLE)
    token = os.environ.get(TOKEN_VARIABLE)
    if not url or not token:
        missing = URL_VARIABLE if not url else TOKEN_VARIABLE
        return _error(
            UNREACHABLE,
            f"{missing} is not set: miniroom-agent works inside a shell command of an agent's response",
        )
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    if body:
        headers["Content-Type"] = "application/json"
    try:
        via = None if os.environ.get(PRIMARY_URL_VARIABLE) else os.environ.get(SOCKET_VARIABLE)
        answer = request(url, method, target, headers, body, wait + REQUEST_SECONDS, via)
    except Unreachable as problem:
        return _error(UNREACHABLE, f"cannot reach miniroom at {url} ({problem}); no call was made")
    except Interrupted as problem:
        if call_id is None:
            return _error(UNREACHABLE, f"the answer from miniroom at {url} was cut off ({problem})")
        return _error(
            UNKNOWN,
            f"the call was sent to {url} but no answer came back ({problem}): its outcome is unknown. "
            f"Check it with `miniroom-agent calls get {call_id}` before you submit it again",
            call_id,
        )
    return _print_answer(answer)


def _print_answer(answer: Answer) -> int:
    text = answer.body.decode("utf-8", "replace").rstrip("\n")
    if 200 <= answer.status < 300:
        sys.stdout.write(text + "\n")
        status = answer.headers.get(STATUS_HEADER)
        return FAILED if status == "failed" else PENDING if status in PENDING_STATUSES else OK
    sys.stderr.write(text + "\n")
    return USAGE if answer.status in (400, 404, 405, 409, 413) else UNREACHABLE


_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _quote(text: str, safe: str = "") -> str:
    allowed = _UNRESERVED | frozenset(safe.encode())
    return "".join(chr(byte) if byte in allowed else f"%{byte:02X}" for byte in text.encode())


def _json_text(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(char if char >= " " else f"\\u{ord(char):04x}" for char in escaped) + '"'


def _error(code: int, message: str, call_id: str | None = None) -> int:
    extra = f', "call_id": {_json_text(call_id)}' if call_id else ""
    sys.stderr.write(f'{{"error": {_json_text(message)}, "exit_code": {code}{extra}}}\n')
    return code
