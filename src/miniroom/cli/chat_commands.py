"""The chat's slash commands: /model, /thinking, /compact, /session, /help, /exit."""

from __future__ import annotations

import asyncio
import enum
from collections.abc import Mapping

from miniroom.agent.builder import switch_model, switch_thinking
from miniroom.config.errors import UserError
from miniroom.engine import Agent
from miniroom.llm import THINKING_LEVELS

HELP = """\
/model [provider/model[:thinking]]  show or switch the model (the conversation is kept)
/thinking [level]                   show or set the thinking level: off minimal low medium high xhigh max
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


def _compact(agent: Agent, runner: asyncio.Runner) -> str:
    if len(agent.messages) < 2:
        return "nothing to compact yet"
    done = runner.run(agent.compact("manual"))
    return (
        "compacted" if done else "nothing to compact (the whole conversation is recent) or the summary failed"
    )


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
