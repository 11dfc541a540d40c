"""The chat's slash commands: /model, /thinking, /mode, /compact, /session, /help, /exit."""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Mapping

from miniroom.agent import CliMode, switch_mode, switch_model, switch_thinking
from miniroom.config.errors import UserError
from miniroom.engine import Agent, NotCompacted
from miniroom.llm import THINKING_LEVELS

HELP = """\
/model [provider/model[:thinking]]  show or switch the model (the conversation is kept)
/thinking [level]                   show or set the thinking level: off minimal low medium high xhigh max
/mode [minimal|standard]            show or switch: minimal sends a short prompt and one bash tool,
                                    whose miniroom-agent reaches the other tools
/compact                            summarize the older part of the conversation now
/session                            the session id and file
/exit                               quit (also Ctrl-D); Ctrl-C stops a running turn"""


class ChatAction(enum.Enum):
    CONTINUE = "continue"
    EXIT = "exit"


def _model(agent: Agent, argument: str, env: Mapping[str, str]) -> str:
    if not argument:
        return f"model: {agent.config.model.ref} · thinking: {agent.config.request_options.thinking_level}"
    switch_model(agent, argument, env)
    return f"switched to {agent.config.model.ref} · thinking: {agent.config.request_options.thinking_level}"


def _thinking(agent: Agent, argument: str) -> str:
    if not argument:
        return (
            f"thinking: {agent.config.request_options.thinking_level} (levels: {' '.join(THINKING_LEVELS)})"
        )
    switch_thinking(agent, argument)
    return f"thinking: {agent.config.request_options.thinking_level}"


def _mode(agent: Agent, argument: str, env: Mapping[str, str]) -> str:
    if argument not in ("", "minimal", "standard"):
        raise ValueError(f"Unknown mode '{argument}': use /mode minimal or /mode standard.")
    if argument:
        switch_mode(agent, env, CliMode(minimal=argument == "minimal"))
    return f"mode: {'minimal' if agent.config.command_line.minimal else 'standard'}"


def _compact(agent: Agent, runner: asyncio.Runner) -> str:
    if len(agent.messages) < 2:
        return "nothing to compact yet"
    outcome = runner.run(agent.compact("manual"))
    if isinstance(outcome, NotCompacted):
        return f"not compacted: {outcome.why}"
    return f"compacted: {outcome.tokens_before:,} → {outcome.tokens_after:,} tokens"


def run_chat_command(agent: Agent, text: str, runner: asyncio.Runner, env: Mapping[str, str]) -> ChatAction:
    name, _, argument = text.partition(" ")
    argument = argument.strip()
    try:
        if name in ("/exit", "/quit"):
            return ChatAction.EXIT
        if name == "/model":
            print(_model(agent, argument, env))
        elif name == "/thinking":
            print(_thinking(agent, argument))
        elif name == "/mode":
            print(_mode(agent, argument, env))
        elif name == "/compact":
            print(_compact(agent, runner))
        elif name == "/session":
            print(f"session {agent.session.id}\nfile    {agent.session.path}")
        elif name == "/help":
            print(HELP)
        else:
            print(f"unknown command {name}; /help lists the commands")
    except (UserError, ValueError) as error:
        print(f"✗ {error}")
    return ChatAction.CONTINUE
