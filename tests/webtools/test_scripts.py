"""ScriptFetch and ScriptSearch with real scripts: the envelopes, failures, the tool environment, and a
timeout that kills the whole process group."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.processes import wait_until_gone
from tests.webtools.conftest import write_catalogue
from tests.webtools.support import build_tools, call, text

FETCH_SCRIPT = """\
import json, os, sys
url = sys.argv[1]
secret = os.environ.get("MINIROOM_API_TOKEN", "none")
body = f"<h1>From the script</h1><p>{url} token={secret}</p>"
print(json.dumps({"url": url + "#final", "status": 200, "contentType": "text/html", "body": body}))
"""
SEARCH_SCRIPT = """\
import json, os, sys
request = json.loads(os.environ["MINIROOM_SEARCH_REQUEST"])
results = [
    {"title": f"{request['args']['site']} {n}", "url": f"https://example.org/{n}", "snippet": sys.argv[1]}
    for n in range(request["count"])
]
print(json.dumps({"answer": "scripted " + str(request["language"]), "results": results}))
"""


def script_service(kind: str, key: str, command: str, extra: str = "", timeout: int = 20) -> str:
    settings = f"    settings:\n      {key}: '{command}'\n      TimeoutSec: {timeout}\n{extra}"
    return f"services:\n  - name: Script\n    type: {kind}\n{settings}"


async def test_script_fetch_prints_the_envelope_and_sees_no_miniroom_secret(tmp_path: Path) -> None:
    (tmp_path / "fetch_page.py").write_text(FETCH_SCRIPT, encoding="utf-8")
    write_catalogue(
        tmp_path, "fetch.yml", script_service("ScriptFetch", "Command", 'python3 fetch_page.py "$1"')
    )
    tool = build_tools(tmp_path, {"MINIROOM_API_TOKEN": "api-token-secret-9"})["fetch"]
    result = await call(tool, tmp_path, url="https://example.org/a")
    assert text(result) == (
        "Fetched https://example.org/a#final (redirected from https://example.org/a) with Script\n\n"
        "# From the script\n\nhttps://example.org/a token=none\n"
    )


async def test_script_fetch_failures_name_the_exit_code_and_the_stderr(tmp_path: Path) -> None:
    write_catalogue(
        tmp_path, "fetch.yml", script_service("ScriptFetch", "Command", "echo no route >&2; exit 3")
    )
    result = await call(build_tools(tmp_path)["fetch"], tmp_path, url="https://example.org/")
    assert (
        text(result)
        == "Could not fetch https://example.org/: every service failed. Script: the command exited with 3: "
        "no route"
    )
    write_catalogue(tmp_path, "fetch.yml", script_service("ScriptFetch", "Command", "echo not json"))
    result = await call(build_tools(tmp_path)["fetch"], tmp_path, url="https://example.org/")
    assert text(result).endswith(
        """Script: did not print a JSON envelope ({"body": ...}); it printed 'not json\\n'"""
    )
    envelope = json.dumps({"status": 404, "body": "gone"})
    write_catalogue(
        tmp_path, "fetch.yml", script_service("ScriptFetch", "Command", f"echo {json.dumps(envelope)}")
    )
    result = await call(build_tools(tmp_path)["fetch"], tmp_path, url="https://example.org/")
    assert text(result).endswith("Script: HTTP 404")
    nul = 'services:\n  - name: Script\n    type: ScriptFetch\n    settings: {Command: "echo a\\0b"}\n'
    write_catalogue(tmp_path, "fetch.yml", nul)
    result = await call(build_tools(tmp_path)["fetch"], tmp_path, url="https://example.org/")
    assert re.search(r"Script: could not start /\S*bash: embedded null byte$", text(result))


async def test_dollar_dollar_reaches_the_shell_and_filled_values_stay_out_of_the_result(
    tmp_path: Path,
) -> None:
    command = 'printf "{\\"body\\": \\"%s %s\\"}" "$$HOME_FOR_TEST" "$SETTING_VALUE"'
    write_catalogue(tmp_path, "fetch.yml", script_service("ScriptFetch", "Command", command))
    environ = {
        "HOME_FOR_TEST": "shell-sees-this",
        "MINI_TOOL_ENV": "HOME_FOR_TEST",  # a variable reaches the script's shell only when named
        "SETTING_VALUE": "expanded-by-miniroom",
    }
    result = await call(build_tools(tmp_path, environ)["fetch"], tmp_path, url="https://example.org/")
    assert text(result).endswith("\n\nshell-sees-this ***")  # a value from a variable may be a secret


@pytest.mark.slow  # the timeout leaves a loaded machine time to start the script
async def test_a_script_past_its_timeout_dies_with_its_background_jobs(tmp_path: Path) -> None:
    pid_file = tmp_path / "sleeper.pid"
    command = f"sleep 300 & echo $! > {pid_file}; wait"
    write_catalogue(tmp_path, "fetch.yml", script_service("ScriptFetch", "Command", command, timeout=5))
    result = await call(build_tools(tmp_path)["fetch"], tmp_path, url="https://example.org/")
    assert text(result).endswith("Script: bash ran longer than 5 s and was stopped")
    wait_until_gone(int(pid_file.read_text()), ["sleep", "300"])  # it ran: it wrote its pid first


async def test_script_search_gets_the_request_and_prints_the_results(tmp_path: Path) -> None:
    (tmp_path / "search.py").write_text(SEARCH_SCRIPT, encoding="utf-8")
    write_catalogue(
        tmp_path,
        "search.yml",
        script_service(
            "ScriptSearch", "ScriptKey", 'python3 search.py "$1"', '      Args: \'{"site": "docs"}\'\n'
        ),
    )
    result = await call(
        build_tools(tmp_path)["search"], tmp_path, query="task groups", count=2, language="fr"
    )
    assert text(result) == (
        "Answer: scripted fr\n\n1. docs 0\n   https://example.org/0\n   task groups\n2. docs 1\n"
        "   https://example.org/1\n   task groups\n\n[2 results for 'task groups' from Script]"
    )


async def test_script_search_args_must_be_a_json_object(tmp_path: Path) -> None:
    write_catalogue(
        tmp_path, "search.yml", script_service("ScriptSearch", "ScriptKey", "true", "      Args: '[1]'\n")
    )
    result = await call(build_tools(tmp_path)["search"], tmp_path, query="q")
    assert text(result).endswith(
        'Script: setting Args must be a JSON object, e.g. {"site": "docs.python.org"}'
    )
