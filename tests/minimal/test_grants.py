"""Grants: a token per shell command, scoped to its response; refused once the response and its background
jobs ended, or 24 hours after the response started; wrong or missing tokens are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.engine import Agent, AgentConfig, CommandLineOffer, Session
from miniroom.llm import Model
from miniroom.minimal.errors import OperationError
from miniroom.minimal.grants import GRANT_LIFETIME_SECONDS, TOKEN_PREFIX
from miniroom.tools.environment import GRANT_TOKEN_VARIABLE
from tests.minimal.support import open_bench


async def test_a_token_reaches_its_response_until_the_response_ends(tmp_path: Path) -> None:
    bench = await open_bench(tmp_path, {})
    assert bench.service.context_list(bench.token)["documents"][0]["name"] == "instructions"
    await bench.ticket.close()
    await bench.response.close()
    with pytest.raises(OperationError) as refused:
        bench.service.context_list(bench.token)
    assert refused.value.status == 403
    assert "its response and the response's background jobs have ended" in refused.value.message


async def test_a_background_job_keeps_the_grant_until_it_ends(tmp_path: Path) -> None:
    bench = await open_bench(tmp_path, {})
    bench.ticket.watch(4242)
    bench.groups.running.add(4242)
    await bench.ticket.close()
    await bench.response.close()
    assert (await bench.service.list_tools(bench.token))["toolkits"] == []
    bench.groups.running.clear()
    with pytest.raises(OperationError, match="background jobs have ended"):
        await bench.service.list_tools(bench.token)


async def test_the_grant_expires_24_hours_after_its_response_started(tmp_path: Path) -> None:
    bench = await open_bench(tmp_path, {})
    bench.clock.now += GRANT_LIFETIME_SECONDS - 1
    await bench.service.list_tools(bench.token)
    bench.clock.now += 1
    with pytest.raises(OperationError) as refused:
        await bench.service.list_tools(bench.token)
    assert (refused.value.status, refused.value.message) == (
        403,
        "this grant no longer works: it expired 24 hours after its response started",
    )


@pytest.mark.parametrize(
    ("token", "errcode"),
    [
        (None, "M_MISSING_TOKEN"),
        ("", "M_MISSING_TOKEN"),
        ("garbage", "M_UNKNOWN_TOKEN"),
        (f"{TOKEN_PREFIX}.0123456789abcdef.secret", "M_UNKNOWN_TOKEN"),
    ],
)
async def test_a_missing_or_unknown_token_is_refused(tmp_path: Path, token: str | None, errcode: str) -> None:
    bench = await open_bench(tmp_path, {})
    with pytest.raises(OperationError) as refused:
        await bench.service.list_tools(token)
    assert (refused.value.status, refused.value.errcode) == (401, errcode)


async def test_the_right_ticket_with_a_wrong_secret_is_refused(tmp_path: Path) -> None:
    bench = await open_bench(tmp_path, {})
    ticket_id = bench.token.split(".")[1]
    for forged in (f"{TOKEN_PREFIX}.{ticket_id}.x", f"{TOKEN_PREFIX}.{ticket_id}.{bench.token[-10:]}"):
        with pytest.raises(OperationError) as refused:
            await bench.service.list_tools(forged)
        assert refused.value.errcode == "M_UNKNOWN_TOKEN"


async def test_each_command_gets_its_own_token_and_the_shell_its_variables(tmp_path: Path) -> None:
    bench = await open_bench(tmp_path, {})
    second = await bench.response.open_command()
    assert second.environment["MINIROOM_AGENT_TOKEN"] != bench.token
    assert second.environment["MINIROOM_AGENT_URL"] == "http://127.0.0.1:9"
    assert second.environment["PATH"].split(":")[0] == str(tmp_path / "agent-bin")
    assert (tmp_path / "agent-bin" / "miniroom-agent").resolve().name == "miniroom-agent"


async def test_a_subagent_gets_a_grant_of_its_own_with_its_parents_scope(tmp_path: Path) -> None:
    bench = await open_bench(tmp_path, {})
    model = Model(id="m", provider="scripted", api="anthropic-messages", base_url="http://127.0.0.1:9")
    offer = CommandLineOffer(documents={"instructions": "You are the child."}, minimal=True)
    config = AgentConfig(model, "child", [], tmp_path, command_line=offer)
    child = Agent(config, Session.create(tmp_path / "sessions", tmp_path))
    response = bench.response.open_subagent(child)
    ticket = await response.open_command()
    token = ticket.environment[GRANT_TOKEN_VARIABLE]
    assert token != bench.token
    assert response.response.grant.owner == bench.response.response.grant.owner
    assert (await bench.service.context_read(token, "instructions", 0, 100))["text"] == "You are the child."
    await ticket.close()
    await response.close()
    with pytest.raises(OperationError, match="background jobs have ended"):
        await bench.service.list_tools(token)
    assert bench.service.context_list(bench.token)["documents"][0]["name"] == "instructions"  # the parent's
    child.session.close()
