"""Judgment backends against real servers on loopback: the scripted provider as an LLM judge (approve,
decline, malformed, abstain, slow past the timeout, failing), the TypeSafe stand-in, and the limits."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from miniroom.config.config_yaml import LlmJudgment, RoomsConfig, TypesafeJudgment
from miniroom.rooms.judge_context import participation_request
from miniroom.rooms.judgment import Backend, Failure, Outcome, Verdict
from miniroom.rooms.policy import AgentPolicy, RoomPolicy
from miniroom.rooms.runtime.dispatcher import judge_env
from miniroom.rooms.runtime.judges import Judges, judgment_problems
from miniroom.rooms.runtime.logs import log_judgment
from miniroom.rooms.runtime.metrics import RoomMetrics
from miniroom.rooms.runtime.router import Router
from miniroom.rooms.runtime.slots import JudgmentSlots
from miniroom.testing.scripted_provider import Reply, ScriptedProvider
from miniroom.testing.typesafe_standin import TypesafeStandIn
from miniroom.testing.typesafe_standin import Verdict as Scripted
from tests.conftest import clean_env
from tests.rooms.factory import ALICE, BOB, HELPER, in_thread, message
from tests.runtime.harness import scripted_model

POLICY = RoomPolicy((AgentPolicy("helper", HELPER, "Helper"),))
THREAD = [
    message("Can someone review @bob:example.org's patch?", sender=ALICE, **in_thread()),
    message("I can look at it.", sender=HELPER, **in_thread()),
    message("what about the tests?", sender=BOB, **in_thread()),
]
REQUEST = participation_request(THREAD, HELPER, POLICY, "Reply when you can help.")
AGENTS = [f"agent{n}" for n in range(10)]


def judges_for(
    provider: ScriptedProvider,
    env: dict[str, str],
    api: str = "anthropic-messages",
    metrics: RoomMetrics | None = None,
) -> Judges:
    model = scripted_model(provider)
    if api == "openai-completions":
        model["variables"] = [
            line.replace(provider.url, provider.openai_base_url).replace("anthropic-messages", api)
            for line in model["variables"]
        ]
    config = RoomsConfig.model_validate(
        {
            "models": {"fast": model, "keyless": {"model": "deepseek/deepseek-v4-flash"}},
            "agents": {name: {"model": "fast"} for name in ["helper", *AGENTS]},
        }
    )
    return Judges(config, env, JudgmentSlots(), metrics)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    environment = clean_env(tmp_path / "mini")
    for name in [name for name in environment if name.startswith("TYPESAFE_")]:
        del environment[name]
    return environment


LLM = LlmJudgment(provider="llm", model="fast", timeout_seconds=10)
ANSWERS = {
    "approve": (Reply(text="yes"), Verdict.YES, None),
    "decline": (Reply(text="No."), Verdict.NO, None),
    "malformed": (Reply(text="I would reply, since Bob asked a question."), None, Failure.MALFORMED),
    "abstain": (Reply(text="unsure"), None, Failure.ABSTAINED),
    "provider_error": (Reply.error(500, "api_error", "boom"), None, Failure.PROVIDER_ERROR),
}


@pytest.mark.parametrize("api", ["anthropic-messages", "openai-completions"])
@pytest.mark.parametrize(("reply", "verdict", "failure"), ANSWERS.values(), ids=ANSWERS.keys())
async def test_the_llm_judge_answers_yes_or_no_and_anything_else_fails(
    provider: ScriptedProvider,
    env: dict[str, str],
    api: str,
    reply: Reply,
    verdict: Verdict | None,
    failure: Failure | None,
) -> None:
    provider.script(reply)
    outcome = await judges_for(provider, env, api).ask("helper", Backend.LLM, LLM, REQUEST)
    assert (outcome.backend, outcome.model, outcome.verdict, outcome.failure) == (
        Backend.LLM,
        "scripted/test-model",
        verdict,
        failure,
    )
    assert outcome.input_bytes == REQUEST.size
    [request] = provider.requests
    body = request.body
    assert not body.get("tools"), "a judgment offers no tools"
    assert "system" not in body, "and no system prompt"
    assert [message["role"] for message in body["messages"]] == ["user"]
    sent = json.dumps(body)
    assert "Reply when you can help." in sent
    assert "what about the tests?" in sent
    assert "example.org" not in sent, "Matrix identities are replaced by aliases"


async def test_each_judgment_is_counted_by_outcome_with_its_latency(
    provider: ScriptedProvider, env: dict[str, str]
) -> None:
    metrics = RoomMetrics()
    judges = judges_for(provider, env, metrics=metrics)
    provider.script(Reply(text="yes"), Reply(text="I would reply, since Bob asked."))
    outcomes = [await judges.ask("helper", Backend.LLM, LLM, REQUEST) for _ in range(2)]
    families = {f.name: f for f in text_string_to_metric_families(metrics.exposition())}
    counted = {s.labels["outcome"]: s.value for s in families["miniroom_judgments"].samples}
    assert counted == {"yes": 1, "malformed_output": 1}
    latency = {s.name: s.value for s in families["miniroom_judgment_seconds"].samples if "le" not in s.labels}
    assert latency["miniroom_judgment_seconds_count"] == 2
    assert latency["miniroom_judgment_seconds_sum"] == pytest.approx(sum(o.seconds for o in outcomes))
    infinite = [s for s in families["miniroom_judgment_seconds"].samples if s.labels.get("le") == "+Inf"]
    assert [(s.labels["backend"], s.value) for s in infinite] == [("llm", 2)]


async def test_an_llm_judge_slower_than_its_timeout_fails(
    provider: ScriptedProvider, env: dict[str, str]
) -> None:
    provider.script(Reply(text="yes", silent=True))
    slow = LlmJudgment(provider="llm", model="fast", timeout_seconds=0.3)
    judges = judges_for(provider, env)
    outcome = await judges.ask("helper", Backend.LLM, slow, REQUEST)
    assert (outcome.verdict, outcome.failure) == (None, Failure.TIMEOUT)
    assert judges.slots.running == 0, "the slot is given back"


async def test_an_llm_judge_without_credentials_fails_before_asking(
    provider: ScriptedProvider, env: dict[str, str]
) -> None:
    keyless = LlmJudgment(provider="llm", model="keyless")
    outcome = await judges_for(provider, env).ask("helper", Backend.LLM, keyless, REQUEST)
    assert (outcome.failure, outcome.model) == (Failure.MISSING_CREDENTIALS, "deepseek/deepseek-v4-flash")
    assert "DEEPSEEK_API_KEY" in outcome.detail
    assert provider.requests == []


async def test_the_reply_model_judges_with_the_agents_own_model_and_no_tools(
    provider: ScriptedProvider, env: dict[str, str]
) -> None:
    provider.script(Reply(text="yes"))
    outcome = await judges_for(provider, env).ask("helper", Backend.REPLY_MODEL, None, REQUEST)
    assert (outcome.backend, outcome.verdict) == (Backend.REPLY_MODEL, Verdict.YES)
    assert not provider.requests[0].body.get("tools")


async def test_a_reply_model_whose_provider_adds_tools_cannot_judge(env: dict[str, str]) -> None:
    config = RoomsConfig.model_validate(
        {
            "models": {"web": {"model": "openrouter/openai/gpt-5:online"}},
            "agents": {"helper": {"model": "web"}},
        }
    )
    judges = Judges(config, {**env, "OPENROUTER_API_KEY": "sk-or-test"}, JudgmentSlots())
    outcome = await judges.ask("helper", Backend.REPLY_MODEL, None, REQUEST)
    assert (outcome.verdict, outcome.failure) == (None, Failure.NATIVE_TOOLS)


# TypeSafe

TYPESAFE = TypesafeJudgment(provider="typesafe", threshold=0.8, timeout_seconds=5)
TYPESAFE_ANSWERS = {
    "at_the_threshold_approves": (0.8, Verdict.YES, None),
    "below_declines": (0.79, Verdict.NO, None),
    "rejected_key": (Scripted(status=401), None, Failure.PROVIDER_ERROR),
    "server_error": (Scripted(status=503), None, Failure.PROVIDER_ERROR),
    "not_system_ones_shape": (Scripted(body={"answers": {}}), None, Failure.MALFORMED),
    "probability_out_of_range": (
        Scripted(body={"answers": {"decision": {"noul": 1.7}}}),
        None,
        Failure.MALFORMED,
    ),
}


@pytest.mark.parametrize(
    ("answer", "verdict", "failure"), TYPESAFE_ANSWERS.values(), ids=TYPESAFE_ANSWERS.keys()
)
async def test_typesafe_approves_at_its_threshold_and_fails_on_errors(
    provider: ScriptedProvider,
    env: dict[str, str],
    answer: float | Scripted,
    verdict: Verdict | None,
    failure: Failure | None,
) -> None:
    with TypesafeStandIn() as standin:
        standin.script(answer)
        settings = {"TYPESAFE_BASE_URL": standin.url, "TYPESAFE_API_KEY": "ts-secret-key"}
        outcome = await judges_for(provider, {**env, **settings}).ask(
            "helper", Backend.TYPESAFE, TYPESAFE, REQUEST
        )
        [seen] = standin.requests
    assert (outcome.verdict, outcome.failure, outcome.threshold) == (verdict, failure, 0.8)
    assert seen.path == "/v1/systemone"
    assert seen.headers["authorization"] == "Bearer ts-secret-key"
    assert seen.body["model"] == "jev-latest"
    assert seen.body["questions"]["decision"]["type"] == "noul"
    assert "yes, no, or unsure" in seen.body["questions"]["decision"]["instructions"]
    state = seen.body["state"]
    assert state["instructions"] == "Reply when you can help."
    assert [line["author"] for line in state["messages"]["Recent messages, oldest first"]] == [
        "Person 1",
        "Helper",
        "Person 2",
    ]
    assert "example.org" not in json.dumps(state)


async def test_typesafe_slower_than_its_timeout_fails(
    provider: ScriptedProvider, env: dict[str, str]
) -> None:
    with TypesafeStandIn() as standin:
        standin.script(Scripted(hang=True))
        settings = {"TYPESAFE_BASE_URL": standin.url, "TYPESAFE_API_KEY": "k"}
        quick = TypesafeJudgment(provider="typesafe", timeout_seconds=0.3)
        outcome = await judges_for(provider, {**env, **settings}).ask(
            "helper", Backend.TYPESAFE, quick, REQUEST
        )
    assert (outcome.verdict, outcome.failure) == (None, Failure.TIMEOUT)


async def test_typesafe_without_a_key_fails_saying_where_to_set_it(
    provider: ScriptedProvider, env: dict[str, str]
) -> None:
    outcome = await judges_for(provider, env).ask("helper", Backend.TYPESAFE, TYPESAFE, REQUEST)
    assert outcome.failure is Failure.MISSING_CREDENTIALS
    assert outcome.detail == "TYPESAFE_API_KEY is not set in the environment or the .env beside config.yaml"


def test_the_typesafe_key_is_read_from_the_env_file_beside_config_yaml_the_environment_winning(
    tmp_path: Path,
) -> None:
    (tmp_path / ".env").write_text(
        'export TYPESAFE_API_KEY="from-file"\nTYPESAFE_BASE_URL=http://127.0.0.1:9\nOPENAI_API_KEY=no\n',
        encoding="utf-8",
    )
    env = judge_env({"PATH": "/bin"}, tmp_path)
    assert (env["TYPESAFE_API_KEY"], env["TYPESAFE_BASE_URL"]) == ("from-file", "http://127.0.0.1:9")
    assert "OPENAI_API_KEY" not in env, "only TYPESAFE_* come from the .env"
    assert judge_env({"TYPESAFE_API_KEY": "from-env"}, tmp_path)["TYPESAFE_API_KEY"] == "from-env"
    assert judge_env({}, tmp_path / "nowhere") == {}


def test_an_unreadable_env_file_is_reported_and_the_environment_used(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / ".env").mkdir()
    assert judge_env({"TYPESAFE_API_KEY": "k"}, tmp_path) == {"TYPESAFE_API_KEY": "k"}
    assert caplog.messages == [
        f"{tmp_path / '.env'}: is a folder: a settings file must be a regular file; "
        "TypeSafe judgments read the environment only"
    ]


# Limits


async def test_ten_concurrent_judgments_run_eight_and_fail_two_at_once(
    provider: ScriptedProvider, env: dict[str, str]
) -> None:
    provider.repeat(Reply(text="yes", silent=True))  # each holds its slot until cancelled
    judges = judges_for(provider, env)
    tasks = [asyncio.create_task(judges.ask(agent, Backend.LLM, LLM, REQUEST)) for agent in AGENTS]
    done, running = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    while len(done) < 2:
        more, running = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
        done |= more
    assert [task.result().failure for task in done] == [Failure.LIMIT_FULL] * 2, "not queued: failed at once"
    assert judges.slots.running == 8
    await asyncio.to_thread(provider.wait_for_requests, 8)
    assert len(provider.requests) == 8, "a judgment finding the limit full never reaches the backend"
    for task in running:
        task.cancel()
    await asyncio.gather(*running, return_exceptions=True)
    assert judges.slots.running == 0


async def test_one_judgment_per_agent_at_a_time(provider: ScriptedProvider, env: dict[str, str]) -> None:
    provider.script(Reply(text="yes", silent=True))
    judges = judges_for(provider, env)
    first = asyncio.create_task(judges.ask("helper", Backend.LLM, LLM, REQUEST))
    await asyncio.to_thread(provider.wait_for_requests, 1)
    second = await judges.ask("helper", Backend.REPLY_MODEL, None, REQUEST)
    assert second.failure is Failure.LIMIT_FULL
    other = judges.slots.running
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
    assert (other, judges.slots.running) == (1, 0)


async def test_the_router_counts_against_the_limit_and_falls_back_when_it_is_full(
    provider: ScriptedProvider, env: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    provider.repeat(Reply(text="yes", silent=True))
    judges = judges_for(provider, env)
    config = judges.config.model_copy(
        update={"router": judges.config.router.model_copy(update={"model": "fast"})}
    )
    router = Router(config, env, judges.slots)
    tasks = [asyncio.create_task(judges.ask(agent, Backend.LLM, LLM, REQUEST)) for agent in AGENTS[:8]]
    await asyncio.to_thread(provider.wait_for_requests, 8)
    assert await router.choose(["agent8", "agent9"], "who?") == "agent8"
    assert len(provider.requests) == 8, "the router asked nobody"
    assert "The judgment limit is full, so agent8 answers without the router" in caplog.messages
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


def test_the_outcome_log_has_the_figures_and_never_the_request_or_a_key(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="miniroom.rooms.judgments")
    typesafe = Outcome(Backend.TYPESAFE, "jev-1", Verdict.YES, None, 0.25, 40, 1, 2048, 0.91, 0.8)
    failed = Outcome(Backend.LLM, "a/b", None, Failure.TIMEOUT, 5.0, detail="no answer within 5 s")
    log_judgment("participation", "helper", "$e", typesafe)
    log_judgment("mid_turn", "helper", "$e", failed)
    assert caplog.messages == [
        "Judgment: kind=participation agent=helper event=$e backend=typesafe model=jev-1 decision=yes "
        "failure=none latency=0.250s tokens_in=40 tokens_out=1 input_bytes=2048 probability=0.910 "
        "threshold=0.8",
        "Judgment: kind=mid_turn agent=helper event=$e backend=llm model=a/b decision=none failure=timeout "
        "latency=5.000s tokens_in=0 tokens_out=0 input_bytes=0 (no answer within 5 s)",
    ]


def test_judgments_that_cannot_work_yet_are_named_at_start(env: dict[str, str]) -> None:
    config = RoomsConfig.model_validate(
        {
            "models": {"keyless": {"model": "deepseek/deepseek-v4-flash"}},
            "agents": {
                "helper": {"participation": {"judgment": {"provider": "typesafe"}}},
                "coder": {"mid_turn": {"judgment": {"provider": "llm", "model": "keyless"}}},
            },
        }
    )
    problems = judgment_problems(config, env)
    assert problems[0] == (
        "Agent helper's participation judgment (typesafe): TYPESAFE_API_KEY is not set in the environment "
        "or the .env beside config.yaml; until it is, the agent's own model judges."
    )
    assert problems[1].startswith("Agent coder's mid_turn judgment (model alias keyless): No API key for ")
    assert judgment_problems(config, {**env, "TYPESAFE_API_KEY": "k", "DEEPSEEK_API_KEY": "k"}) == []
