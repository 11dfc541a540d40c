"""Edits: a person edited a message an agent answered, so that agent answers again, editing its reply."""

from __future__ import annotations

import logging

from miniroom.rooms.decide import regenerate_on_edit, reply_conversation
from miniroom.rooms.events import RoomEvent, parse_event
from miniroom.rooms.runtime.context import HandlerContext
from miniroom.rooms.runtime.ledger import Turn

log = logging.getLogger(__name__)
EDITED_PROMPT = "{who} edited the message you answered; answer it as it now reads:\n{body}"


class EditHandler:
    """Regenerates the replies to an edited message, each in place; an older edit arriving late is ignored."""

    def __init__(self, context: HandlerContext) -> None:
        self.context = context
        self._newest_edits: dict[str, RoomEvent] = {}  # edited event id -> its newest edit seen

    async def handle(self, edit: RoomEvent) -> None:
        facts, ledger = self.context.facts, self.context.ledger
        target = edit.relation.replaces or ""
        related = await facts.related(edit)
        regenerations = regenerate_on_edit(
            edit,
            policy=facts.policy,
            get_event=related.get,
            agent_replies=ledger.replies,
            newest_edit=self._newest_edits.get(target),
        )
        if not regenerations:
            log.debug("Edit %s of %s: no agent reply to regenerate", edit.event_id, target)
            return
        self._newest_edits[target] = edit
        original = parse_event(related[target])
        conversation = await facts.conversation(original)
        room = await facts.room_state(edit.room_id)
        who = await facts.sender_name(edit.room_id, edit.sender)
        for regeneration in regenerations:
            if ledger.answered(edit.event_id, regeneration.agent) or not facts.hosts(regeneration.agent):
                continue
            log.info(
                "Regenerating: event=%s edits=%s agent=%s reply=%s",
                edit.event_id,
                target,
                regeneration.agent,
                regeneration.reply_event_id,
            )
            prompt = EDITED_PROMPT.format(who=who, body=regeneration.body)
            where = reply_conversation(original, conversation, room.thread_mode(regeneration.agent))
            turn = Turn(
                regeneration.agent,
                where,
                edit.event_id,
                prompt,
                edit_of=regeneration.reply_event_id,
                requester=edit.sender,
            )
            self.context.turns.submit(turn)
