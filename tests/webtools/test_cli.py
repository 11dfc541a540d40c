"""End to end through `miniroom`: the agent fetches and searches with the scripted provider, the chain falls
through, the tools appear only with a service, `web test` and `config check` cover the files."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from tests.cli.test_chat import ChatProcess
from tests.conftest import MINIROOM, Workspace
from tests.webtools.conftest import write_catalogue
from tests.webtools.servers import Running, serve
from tests.webtools.test_search import KEY, STAND_INS, vendor

pytestmark = pytest.mark.e2e  # runs `miniroom` in subprocesses

one_protocol = pytest.mark.parametrize("workspace", ["openai-completions"], indirect=True)
# The test site is on 127.0.0.1, loopback, which a fetch service reaches only when its settings allow it.
LOCAL = "{AllowPrivateNetwork: true}"


def tool_names(body: dict) -> list[str]:  # type: ignore[type-arg]
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def closed_port_url() -> str:
    with serve(lambda seen: None) as gone:  # type: ignore[arg-type,return-value]
        return gone.url


def json_records(stdout: str) -> list[dict]:  # type: ignore[type-arg]
    return [json.loads(line) for line in stdout.splitlines()]


@one_protocol
def test_the_first_run_creates_fetch_yml_and_the_chain_falls_through(
    workspace: Workspace, provider: ScriptedProvider, site: Running
) -> None:
    result = workspace.run("config", "check")
    assert "No settings files found" in result.stdout
    provider.script(Reply(text="hello"))
    assert workspace.run("run", "hi").returncode == 0
    fetch_yml = workspace.project / ".miniroom" / "fetch.yml"
    assert "type: Direct" in fetch_yml.read_text()
    assert "fetch" in tool_names(provider.requests[0].body)
    assert "search" not in tool_names(provider.requests[0].body)

    write_catalogue(
        workspace.project,
        "fetch.yml",
        f"services:\n  - name: Dead proxy\n    type: Proxied\n    priority: 1\n    settings: {{ProxyUrl: "
        f"'{closed_port_url()}', AllowPrivateNetwork: true}}\n  - name: Direct HTTP\n    type: Direct\n"
        f"    priority: 2\n    settings: {LOCAL}\n",
    )
    url = f"{site.url}/page.html"
    provider.script(Reply(tool_calls=[("fetch", {"url": url})]), Reply(text="TaskGroup runs tasks together."))
    result = workspace.run("run", "--json", f"read {url} and summarise TaskGroup")
    assert result.returncode == 0, result.stderr
    records = json_records(result.stdout)
    start = next(record for record in records if record["type"] == "tool_start")
    end = next(record for record in records if record["type"] == "tool_end")
    assert start["summary"] == f"Fetch {url}"
    assert end["details"]["service"] == "Direct HTTP"
    assert isinstance(end["details"]["latency_ms"], int)
    assert end["details"]["failed"][0]["service"] == "Dead proxy"
    tool_result = provider.requests[-1].body["messages"][-1]["content"]
    assert tool_result.startswith(f"Fetched {url} with Direct HTTP\nFailed first: Dead proxy: ")
    assert "# Asyncio tasks" in tool_result


@one_protocol
def test_a_conversion_failure_is_not_replayed_by_the_next_service(
    workspace: Workspace, provider: ScriptedProvider, site: Running
) -> None:
    write_catalogue(
        workspace.project,
        "fetch.yml",
        f"services:\n  - name: A\n    type: Direct\n    priority: 1\n    settings: {LOCAL}\n"
        f"  - name: B\n    type: Direct\n    priority: 2\n    settings: {LOCAL}\n",
    )
    provider.script(Reply(tool_calls=[("fetch", {"url": f"{site.url}/big.html"})]), Reply(text="too big"))
    assert workspace.run("run", "get it").returncode == 0
    assert [seen.path for seen in site.seen] == ["/big.html"]
    tool_result = provider.requests[-1].body["messages"][-1]["content"]
    assert "more than the 5 MB fetch converts to Markdown" in tool_result
    assert tool_result.endswith("(service A)")


@one_protocol
def test_no_tool_without_an_enabled_service_and_search_with_one(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    write_catalogue(
        workspace.project, "fetch.yml", "services:\n  - name: D\n    type: Direct\n    enabled: false\n"
    )
    provider.script(Reply(text="one"), Reply(text="two"))
    assert workspace.run("run", "hi").returncode == 0
    first = provider.requests[0].body
    assert "fetch" not in tool_names(first)
    assert "search" not in tool_names(first)
    assert "fetch" not in json.dumps(first["messages"][0]).lower()
    write_catalogue(
        workspace.project,
        "search.yml",
        "services:\n  - name: B\n    type: Brave\n    settings: {ApiKey: $K}\n",
    )
    assert workspace.run("run", "hi").returncode == 0
    assert "search" in tool_names(provider.requests[1].body)


@one_protocol
def test_the_agent_searches_with_a_brave_key_from_the_environment(
    workspace: Workspace, provider: ScriptedProvider
) -> None:
    with serve(vendor(STAND_INS["Brave"])) as brave:
        write_catalogue(
            workspace.project,
            "search.yml",
            "services:\n  - name: Brave\n    type: Brave\n    settings:\n      ApiKey: $BRAVE_API_KEY\n",
        )
        workspace.env.update({"BRAVE_API_KEY": KEY, "MINIROOM_WEB_BASE_URL_BRAVE": brave.url})
        provider.script(Reply(tool_calls=[("search", {"query": "asyncio", "count": 2})]), Reply(text="found"))
        result = workspace.run("run", "--json", "search the web")
    assert result.returncode == 0, result.stderr
    assert brave.seen[0].query == {"q": "asyncio", "count": "2"}
    start = next(record for record in json_records(result.stdout) if record["type"] == "tool_start")
    assert start["summary"] == "Search asyncio"
    tool_result = provider.requests[-1].body["messages"][-1]["content"]
    assert tool_result.startswith("1. Brave hit\n   https://example.org/1\n")
    assert KEY not in result.stdout + result.stderr + json.dumps(provider.requests[-1].body)


def web_test(workspace: Workspace, *args: str) -> subprocess.CompletedProcess[str]:
    return workspace.run("web", "test", *args)


def test_web_test_reports_ok_latency_and_a_sample(tmp_path: Path, site: Running) -> None:
    workspace = Workspace(
        tmp_path, tmp_path / "mini", {**os.environ, "MINI_AGENT_DIR": str(tmp_path / "mini")}
    )
    service = f"  - name: Direct HTTP\n    type: Direct\n    settings: {LOCAL}\n"
    write_catalogue(tmp_path, "fetch.yml", "services:\n" + service)
    result = web_test(workspace, "fetch", "Direct HTTP", f"{site.url}/page.html")
    assert result.returncode == 0, result.stderr
    status, rest = result.stdout.split(" ms · ", 1)
    assert status.startswith("ok · ")
    assert rest.startswith(
        f"fetch service 'Direct HTTP': fetched {site.url}/page.html (HTTP 200, text/html, "
    )
    assert "\n# Asyncio tasks\n" in result.stdout
    failed = web_test(workspace, "--json", "fetch", "Direct HTTP", f"{site.url}/error")
    assert failed.returncode == 1
    assert json.loads(failed.stdout) | {"latency_ms": 0} == {
        "ok": False,
        "latency_ms": 0,
        "explanation": "HTTP 500 Internal Server Error",
        "sample": "",
    }
    missing = web_test(workspace, "search", "Serper")
    assert (missing.returncode, missing.stdout) == (
        1,
        f"failed · 0 ms · search service 'Serper': {tmp_path}/.miniroom/search.yml does not exist: save the "
        "search services first\n",
    )


def test_web_test_without_fetch_yml_uses_the_built_in_service(tmp_path: Path, site: Running) -> None:
    workspace = Workspace(
        tmp_path, tmp_path / "mini", {**os.environ, "MINI_AGENT_DIR": str(tmp_path / "mini")}
    )
    result = web_test(workspace, "fetch", "Direct HTTP", f"{site.url}/page.html")
    assert result.returncode == 1, result.stderr
    assert result.stdout.endswith(  # the built-in service, which keeps to public addresses
        "fetch service 'Direct HTTP': fetch refused: 127.0.0.1 is a loopback address; a fetch service allows "
        "it with AllowPrivateNetwork: true in .miniroom/fetch.yml\n"
    )
    assert site.seen == []
    assert not (tmp_path / ".miniroom" / "fetch.yml").exists()  # a test saves nothing
    unknown = web_test(workspace, "fetch", "Direct")
    assert (unknown.returncode, unknown.stdout) == (
        1,
        f"failed · 0 ms · fetch service 'Direct': {tmp_path}/.miniroom/fetch.yml does not exist, so the "
        'built-in services are used, and none is named "Direct" (services: "Direct HTTP")\n',
    )


def test_web_test_runs_a_search_service_and_keeps_its_key_out(tmp_path: Path) -> None:
    with serve(vendor(STAND_INS["Tavily"])) as tavily:
        env = {**os.environ, "TAVILY_KEY": KEY, "MINIROOM_WEB_BASE_URL_TAVILY": tavily.url}
        workspace = Workspace(tmp_path, tmp_path / "mini", env)
        write_catalogue(
            tmp_path,
            "search.yml",
            "services:\n  - name: Tavily\n    type: Tavily\n    settings: {ApiKey: $TAVILY_KEY}\n",
        )
        result = web_test(workspace, "search", "Tavily", "rust async")
    assert result.returncode == 0, result.stderr
    assert (
        "search service 'Tavily': 1 result for 'rust async' and an answer\nAnswer: Use TaskGroup\n"
        in result.stdout
    )
    assert tavily.seen[0].json()["query"] == "rust async"
    assert KEY not in result.stdout


def test_config_check_validates_fetch_and_search_files(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path, tmp_path / "mini", dict(os.environ))
    write_catalogue(tmp_path, "fetch.yml", "services:\n  - name: D\n    type: Direct\n    priority: 0\n")
    write_catalogue(tmp_path, "search.yml", "services:\n  - name: B\n    type: Brave\n")
    result = workspace.run("config", "check")
    assert result.returncode == 1
    assert result.stdout == (
        "error: .miniroom/fetch.yml:4: services[0].priority: must be a whole number above zero (lower is "
        "tried first), got 0\n"
        "error: .miniroom/search.yml:2: services[0].settings: ApiKey is required by Brave: add it, e.g. "
        "ApiKey: $BRAVE_API_KEY (service "
        '"B" is not used)\n2 error(s) found.\n'
    )


@one_protocol
def test_chat_shows_a_fetch_as_one_line(
    workspace: Workspace, provider: ScriptedProvider, site: Running
) -> None:
    url = f"{site.url}/data.json"
    provider.script(Reply(tool_calls=[("fetch", {"url": url})]), Reply(text="It names two tools."))
    chat = ChatProcess(workspace)
    try:
        chat.send("what does it say?")
        output = chat.expect("It names two tools.", timeout=60)
    finally:
        chat.close()
    assert f"● Fetch {url}\n" in output


def test_serve_creates_fetch_yml_at_start(tmp_path: Path) -> None:
    env = {**os.environ, "MINI_AGENT_DIR": str(tmp_path / "mini")}
    (tmp_path / "config.yaml").write_text("agents: {}\n", encoding="utf-8")
    with serve(lambda seen: None) as busy:  # type: ignore[arg-type,return-value]
        port = busy.url.rsplit(":", 1)[1]
        result = subprocess.run(
            [MINIROOM, "serve", "--config", str(tmp_path / "config.yaml"), "--port", port],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
    assert result.returncode == 1  # the port is taken: serve stops right after its start-up
    assert "choose another --port" in result.stderr
    assert "type: Direct" in (tmp_path / ".miniroom" / "fetch.yml").read_text()
