"""Agents answering in rooms on a real Synapse: threads, multi-human threads, !thread_mode, edits, catch-up.

Humans are plain client-server accounts (`Human`); everything asserted is read back through their client,
from /messages and /relations, as Element would show it.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from miniroom.rooms.commands import ROOM_ADMIN_ONLY
from miniroom.rooms.content import permalink
from miniroom.rooms.runtime.child_threads import PARENT_LINK_TEXT
from miniroom.testing.scripted_provider import RecordedRequest, Reply, ScriptedProvider
from tests.matrix.conftest import MakeHuman
from tests.matrix.humans import Event
from tests.matrix.runtime_support import (
    agent_names,
    edit,
    eventually,
    matrix_runtime,
    messages_by,
    relation,
    relations,
    room_events,
    room_with_agents,
    send_many,
    send_mention,
    shown_text,
)
from tests.matrix.synapse_server import Synapse

LONG_ANSWER = "Hello there! " * 20
BURST = 200


def user_text(request: RecordedRequest) -> str:
    """The newest user message a model request carries (the prompt of the turn)."""
    content = request.body["messages"][-1]["content"]
    return content if isinstance(content, str) else "".join(block.get("text", "") for block in content)


def last_user_text(provider: ScriptedProvider) -> str:
    return user_text(provider.requests[-1])


def thread_relation(root: str, in_reply_to: str) -> dict[str, object]:
    return {
        "rel_type": "m.thread",
        "event_id": root,
        "is_falling_back": True,
        "m.in_reply_to": {"event_id": in_reply_to},
    }


async def test_a_room_message_starts_a_thread_streamed_by_edits(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(Reply(text=LONG_ANSWER, delay=0.02))
    agents = agent_names("helper", "reviewer")
    helper, reviewer = list(agents)
    alice = human("alice")
    async with matrix_runtime(tmp_path, synapse, provider, agents) as served:
        room = await room_with_agents(alice, served, [])
        question = await alice.send(room, "hello")

        async def answered() -> list[Event]:
            return messages_by(await relations(alice, room, question, "m.thread"), served.user_id(helper))

        [reply] = await eventually(answered, "the helper's reply in the thread")
        await served.idle()
        assert relation(reply) == thread_relation(question, question)
        edits = await relations(alice, room, reply["event_id"], "m.replace")
        assert edits, "the streamed reply was never edited in place"
        assert reply["content"]["body"] != LONG_ANSWER.strip(), "the reply was posted only once finished"
        assert edits[-1]["content"]["m.new_content"]["body"] == LONG_ANSWER.strip()
        assert await shown_text(alice, room, reply) == LONG_ANSWER.strip()
        thread = await relations(alice, room, question, "m.thread")
        assert [event["sender"] for event in thread if event["type"] == "m.room.message"] == [
            served.user_id(helper)
        ], "one agent answers an untagged message, once"
        assert not messages_by(await room_events(alice, room), served.user_id(reviewer))
        assert last_user_text(provider) == f"{alice.user_id[1:].partition(':')[0]}: hello"


async def test_a_second_human_in_the_thread_makes_agents_wait_for_a_mention(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(Reply(text="Hi!"), Reply(text="More, then."), Reply(text="Ship it, Bob."))
    agents = agent_names("helper", "reviewer")
    helper, reviewer = list(agents)
    alice, bob = human("alice"), human("bob")
    async with matrix_runtime(tmp_path, synapse, provider, agents) as served:
        room = await room_with_agents(alice, served, [bob])
        helper_id, reviewer_id = served.user_id(helper), served.user_id(reviewer)
        root = await alice.send(room, "hello")

        async def thread_replies(sender: str, count: int) -> list[Event] | None:
            found = messages_by(await relations(alice, room, root, "m.thread"), sender)
            return found if len(found) >= count else None

        await eventually(lambda: thread_replies(helper_id, 1), "the first reply")
        await alice.reply_in_thread(room, root, "and more?")  # one human in the thread: answered untagged
        await eventually(lambda: thread_replies(helper_id, 2), "the answer to alice's untagged follow-up")
        await bob.reply_in_thread(room, root, "I think we should ship it")
        await alice.reply_in_thread(room, root, "agreed")
        mention = await send_mention(bob, room, reviewer_id, "Reviewer", "what do you think?", root)
        [answer] = await eventually(lambda: thread_replies(reviewer_id, 1), "the mentioned reviewer's answer")
        await served.idle()  # a turn for the untagged messages would have been queued before the mention's

        assert len(messages_by(await relations(alice, room, root, "m.thread"), helper_id)) == 2
        assert relation(answer) == thread_relation(root, mention)
        assert await shown_text(alice, room, answer) == "Ship it, Bob."
        assert len(provider.requests) == 3
        alice_name, bob_name = (person.user_id[1:].partition(":")[0] for person in (alice, bob))
        helper_name = agents[helper]
        assert last_user_text(provider) == "\n\n".join(
            [
                f"{alice_name}: hello",
                f"{helper_name}: Hi!",
                f"{alice_name}: and more?",
                f"{helper_name}: More, then.",
                f"{bob_name}: I think we should ship it",
                f"{alice_name}: agreed",
                f"{bob_name}: Reviewer: what do you think?",
            ]
        ), "new in the thread, the reviewer hears it from its root"


async def test_thread_mode_room_is_for_the_room_admin_and_survives_a_restart(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(Reply(text="one"), Reply(text="two"))
    agents = agent_names("helper", "reviewer")
    helper = next(iter(agents))
    alice, bob = human("alice"), human("bob")
    async with matrix_runtime(tmp_path, synapse, provider, agents) as served:
        room = await room_with_agents(alice, served, [bob])  # alice created the room: she is its admin
        helper_id = served.user_id(helper)

        async def helper_messages(count: int) -> list[Event] | None:
            found = messages_by(await room_events(alice, room), helper_id)
            return found if len(found) >= count else None

        await bob.send(room, "!thread_mode room")
        [denied] = await eventually(lambda: helper_messages(1), "the answer to bob's !thread_mode")
        assert denied["content"]["msgtype"] == "m.notice"
        assert denied["content"]["body"] == ROOM_ADMIN_ONLY
        await alice.send(room, "!thread_mode room")
        notice = (await eventually(lambda: helper_messages(2), "the answer to alice's !thread_mode"))[1]
        assert notice["content"]["msgtype"] == "m.notice"
        assert notice["content"]["body"].startswith("Thread mode override: room")
        await alice.send(room, "hello")
        await eventually(lambda: helper_messages(3), "the room-level answer")
        await served.idle()

        await served.restart()
        await alice.send(room, "and again")
        await eventually(lambda: helper_messages(4), "the room-level answer after a restart")
        await served.idle()
        sent = messages_by(await room_events(alice, room), helper_id)
        assert len(sent) == 4, "a command or message was answered twice after the restart"
        replies = sent[2:]
        assert [await shown_text(alice, room, reply) for reply in replies] == ["one", "two"]
        assert all("m.relates_to" not in reply["content"] for reply in replies), "replies must be room-level"
        assert len(provider.requests) == 2


async def test_an_edit_regenerates_the_reply_in_place(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(Reply(text="4"), Reply(text="6"))
    agents = agent_names("helper", "reviewer")
    helper = next(iter(agents))
    alice = human("alice")
    async with matrix_runtime(tmp_path, synapse, provider, agents) as served:
        room = await room_with_agents(alice, served, [])
        helper_id = served.user_id(helper)
        question = await alice.send(room, "what is 2+2?")

        async def replies() -> list[Event]:
            return messages_by(await relations(alice, room, question, "m.thread"), helper_id)

        [reply] = await eventually(replies, "the first answer")
        assert await shown_text(alice, room, reply) == "4"
        await edit(alice, room, question, "what is 3+3?")

        async def regenerated() -> bool:
            return await shown_text(alice, room, reply) == "6"

        await eventually(regenerated, "the reply edited to the new answer")
        await served.idle()
        assert [event["event_id"] for event in await replies()] == [reply["event_id"]], (
            "the regenerated answer must edit the reply, not add one"
        )
        edits = await relations(alice, room, reply["event_id"], "m.replace")
        assert {event["sender"] for event in edits} == {helper_id}
        newest = edits[-1]["content"]["m.new_content"]
        assert (newest["body"], newest["io.miniroom.turn"]["state"]) == ("6", "done")
        assert "what is 3+3?" in last_user_text(provider)
        assert len(provider.requests) == 2


async def test_a_burst_sent_while_offline_is_answered_once_each_across_restarts(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.repeat(Reply(text="noted"))
    agents = agent_names("helper", "reviewer")
    helper = next(iter(agents))
    alice = human("alice")
    async with matrix_runtime(tmp_path, synapse, provider, agents) as served:
        room = await room_with_agents(alice, served, [])
        helper_id = served.user_id(helper)
        await served.stop()
        questions = await send_many(alice, room, [f"message {number}" for number in range(BURST)])

        async def answers_per_question() -> Counter[str]:
            replies = messages_by(await room_events(alice, room), helper_id)
            return Counter(relation(reply).get("event_id", "") for reply in replies)

        async def asked(count: int) -> bool:
            return len(provider.requests) >= count

        async def all_answered() -> bool:
            counts = await answers_per_question()
            return all(counts[question] for question in questions)

        await served.start()
        await eventually(lambda: asked(BURST // 4), "the catch-up to begin")
        await served.restart()  # in the middle of the catch-up: turns queued or running are cut short
        # Each message is one model request; reading the whole room too often would slow Synapse down.
        await eventually(lambda: asked(BURST), f"a model request for each of the {BURST} messages", within=60)
        await eventually(all_answered, f"an answer to each of the {BURST} messages", every=0.5)
        await served.idle()
        counts = await answers_per_question()
        assert [question for question in questions if counts[question] != 1] == [], "lost or answered twice"
        assert set(counts) == set(questions), "a reply that answers none of the messages"

        await served.restart()
        after = await alice.send(room, "one more")

        async def after_answered() -> list[Event]:
            return messages_by(await relations(alice, room, after, "m.thread"), helper_id)

        await eventually(after_answered, "the answer to a message after the second restart")
        await served.idle()
        counts = await answers_per_question()
        questions.append(after)
        assert [question for question in questions if counts[question] != 1] == [], "lost or answered twice"
        assert set(counts) == set(questions)
        # A turn cut short by the restart asks the model again; only the replies must be one per message.
        prompts = {user_text(request) for request in provider.requests}
        assert len(prompts) == BURST + 1


async def test_a_subagent_gets_a_thread_of_its_own_linked_both_ways(
    tmp_path: Path, synapse: Synapse, provider: ScriptedProvider, human: MakeHuman
) -> None:
    provider.script(
        Reply(tool_calls=[("agent", {"description": "count files", "prompt": "CHILD count the files"})]),
        Reply(text="There are none."),
    )
    provider.script_for("CHILD", Reply(tool_calls=[("ls", {"path": "."})]), Reply(text="zero files"))
    agents = agent_names("helper")
    [helper] = list(agents)
    alice = human("alice")
    async with matrix_runtime(tmp_path, synapse, provider, agents) as served:
        room = await room_with_agents(alice, served, [])
        question = await alice.send(room, "how many files?")
        agent_id = served.user_id(helper)

        async def answered() -> str | None:
            replies = messages_by(await relations(alice, room, question, "m.thread"), agent_id)
            text = await shown_text(alice, room, replies[0]) if replies else ""
            return text if text.endswith("There are none.") and "(done)" in text else None

        parent_text = await eventually(answered, "the parent's reply, linking to a finished subagent")
        await served.idle()
        [reply] = messages_by(await relations(alice, room, question, "m.thread"), agent_id)
        [root] = [e for e in messages_by(await room_events(alice, room), agent_id) if not relation(e)]
        assert root["content"]["msgtype"] == "m.notice"
        assert (
            root["content"]["body"]
            == f"Subagent: count files (for [{PARENT_LINK_TEXT}]({permalink(room, reply['event_id'])}))"
        )
        assert (
            parent_text
            == f"🔧 Agent count files → {permalink(room, root['event_id'])} (done)\n\nThere are none."
        )
        [child_reply] = messages_by(await relations(alice, room, root["event_id"], "m.thread"), agent_id)
        assert relation(child_reply) == thread_relation(root["event_id"], root["event_id"])
        assert (await shown_text(alice, room, child_reply)).startswith("🔧 Ls .\n\nzero files\n\n💸 ")
    assert len(provider.requests) == 4  # the thread's posts started no turn
