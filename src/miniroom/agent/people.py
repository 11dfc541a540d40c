"""The person in the loop of an agent's conversation: who approves its calls and answers its questions."""

from __future__ import annotations

import dataclasses

from miniroom.engine import Agent, Person
from miniroom.tools import ASK_USER_TOOL_NAME, AskUserTool


def offer_person(agent: Agent, person: Person) -> None:
    """`person` decides on the agent's calls; where they can answer, the agent gets `ask_user` (not in
    minimal mode, whose one tool is Bash)."""
    config = agent.config
    config.person = person
    present = person.present and not config.command_line.minimal
    if present and all(tool.name != ASK_USER_TOOL_NAME for tool in config.tools):
        agent.reconfigure(dataclasses.replace(config, tools=[*config.tools, AskUserTool()]))
