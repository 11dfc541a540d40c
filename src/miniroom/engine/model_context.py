"""What the model is sent of a conversation: only what a provider accepts, whatever the session holds."""

from __future__ import annotations

from miniroom.llm import (
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserContent,
    UserMessage,
)

LOST_RESULT_TEXT = "The result of this tool call was lost: its line in the session file is damaged."


def model_context(messages: list[Message]) -> list[Message]:
    """The messages to send: failed attempts and empty aborted answers stay in the session, not here; the
    context starts with a user message, and every tool call is followed by its result and every result
    follows its call (a damaged session line may have taken one of them)."""
    sent = [m for m in messages if not (isinstance(m, AssistantMessage) and _left_out(m))]
    first_user = next((i for i, m in enumerate(sent) if isinstance(m, UserMessage)), len(sent))
    return _paired(sent[first_user:])


def _left_out(message: AssistantMessage) -> bool:
    return message.stop_reason == "error" or (message.stop_reason == "aborted" and not message.content)


def _paired(messages: list[Message]) -> list[Message]:
    """Results without their call are dropped; calls without their result get an error result."""
    paired: list[Message] = []
    open_calls: dict[str, ToolCall] = {}  # the latest answer's calls still waiting for their result
    for message in messages:
        if isinstance(message, ToolResultMessage):
            if open_calls.pop(message.tool_call_id, None) is not None:
                paired.append(message)
            continue
        paired += [_lost_result(call) for call in open_calls.values()]
        open_calls = (
            {call.id: call for call in message.tool_calls} if isinstance(message, AssistantMessage) else {}
        )
        paired.append(message)
    return paired + [_lost_result(call) for call in open_calls.values()]


def _lost_result(call: ToolCall) -> ToolResultMessage:
    text: list[UserContent] = [TextContent(LOST_RESULT_TEXT)]
    return ToolResultMessage(call.id, call.name, text, is_error=True)
