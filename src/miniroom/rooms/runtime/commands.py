"""Commands: a known `!` command (the table in `rooms.commands`) is carried out and answered with a notice."""

from __future__ import annotations

import logging

from miniroom.rooms.commands import (
    ModeChange,
    ModeCommand,
    ModeFacts,
    Outcome,
    carry_out_command,
    is_room_admin,
    parse_command,
    run_mode_command,
)
from miniroom.rooms.content import MESSAGE_EVENT, conversation_relation, message_content
from miniroom.rooms.events import RoomEvent
from miniroom.rooms.runtime.context import HandlerContext
from miniroom.rooms.runtime.ledger import transaction_id

log = logging.getLogger(__name__)
COMMAND_REPLIER_NOT_JOINED = "No agent has joined %s, so the command %s goes unanswered"


class CommandHandler:
    """Answers each command once, as the first configured agent that belongs in the room."""

    def __init__(self, context: HandlerContext) -> None:
        self.context = context

    async def handle(self, event: RoomEvent) -> None:
        context = self.context
        command = parse_command(event.body)
        if command is None or context.ledger.answered(event.event_id):
            return
        replier = await self._replier(event.room_id)
        if replier is None:
            log.warning(COMMAND_REPLIER_NOT_JOINED, event.room_id, event.event_id)
            return
        if not context.facts.hosts(replier):
            return  # the instance hosting that agent answers
        if isinstance(command, ModeCommand):
            outcome, reply = await self._mode(command, event)
        else:
            power_levels = await context.transport.power_levels(event.room_id)
            result = carry_out_command(
                command,
                room_id=event.room_id,
                sender_is_admin=is_room_admin(power_levels, event.sender),
                overrides=context.facts.thread_modes,
            )
            outcome, reply = result.outcome, result.reply
        log.info(
            "Command: event=%s room=%s sender=%s outcome=%s",
            event.event_id,
            event.room_id,
            event.sender,
            outcome.name,
        )
        conversation = await context.facts.conversation(event)
        relation = conversation_relation(conversation.thread_root, event.event_id)
        content = message_content(reply, relates_to=relation)
        content["msgtype"] = "m.notice"
        sender = context.transport.agent_user_id(replier)
        txn_id = transaction_id(event.event_id, replier, "command")
        reply_id = await context.transport.send(sender, event.room_id, MESSAGE_EVENT, content, txn_id=txn_id)
        context.ledger.record_reply(event.event_id, replier, reply_id)

    async def _mode(self, command: ModeCommand, event: RoomEvent) -> tuple[Outcome, str]:
        """`!mode`: one agent's mode in this conversation (the whole room for an agent in room mode)."""
        facts, modes = self.context.facts, self.context.modes
        room = await facts.room_state(event.room_id)
        here = [agent for agent in facts.policy.agents if room.hosts(agent)]
        named = next((agent for agent in here if agent.name.lower() == command.agent.lower()), None)
        if named is None:
            result = run_mode_command(
                command, ModeFacts(None, tuple(a.name for a in here), False, None, False)
            )
            return result.outcome, result.reply
        thread_root = (await facts.conversation(event)).thread_root
        room_wide = room.thread_mode(named.name) == "room"
        key_root = None if room_wide else thread_root
        where = "this room" if room_wide else "this thread" if thread_root else None
        mode_facts = ModeFacts(
            agent=named.name,
            agents_here=tuple(agent.name for agent in here),
            may_talk=named.may_reply_to(event.sender) and not facts.is_agent(event.sender),
            where=where,
            minimal_now=modes.store.minimal(named.name, event.room_id, key_root),
            problems=tuple(modes.problems(named.name)) if command.action == "minimal" else (),
        )
        result = run_mode_command(command, mode_facts)
        if result.change is ModeChange.SAVE_MINIMAL:
            modes.store.set_minimal(named.name, event.room_id, key_root)
        elif result.change is ModeChange.CLEAR:
            modes.store.clear(named.name, event.room_id, key_root)
        return result.outcome, result.reply

    async def _replier(self, room_id: str) -> str | None:
        """The first configured agent that belongs in the room answers its commands."""
        facts = self.context.facts
        room = await facts.room_state(room_id)
        return next((agent.name for agent in facts.policy.agents if room.hosts(agent)), None)
