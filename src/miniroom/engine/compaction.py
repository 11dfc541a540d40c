"""Compaction: when the context nears the model's window, room is made, the cheap way first.

1. Old tool output is cleared (`tool_output`): each result but the newest rounds' becomes a one-line stub.
2. When that is not enough, the older part is summarized: the cut may fall inside the running turn, at an
   answer whose tool calls all have their results, and the request that started the turn is kept verbatim.
3. After a provider's "too long" refusal, the largest tool result is cut to its head and tail as a last step.

The decisions are pure functions; `Compactor` carries them out for one agent: it keeps the running token
estimate of the agent's context and records what it did in the session.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, Protocol

from miniroom.engine.context_size import (
    RESERVE_TOKENS,
    compaction_threshold,
    context_tokens,
    estimate_text_tokens,
    estimate_tokens,
    last_reported,
    needs_compaction,
    refused_tokens,
    running_estimates,
    token_ratio,
)
from miniroom.engine.events import Compacted
from miniroom.engine.session import Session
from miniroom.engine.summary_prompt import (
    SUMMARIZER_PROMPT,
    bounded_summary,
    file_activity,
    summary_request,
)
from miniroom.engine.tool import Tool
from miniroom.engine.tool_output import (
    clearable_output,
    largest_output,
    with_replacements,
)
from miniroom.llm import (
    Context,
    Message,
    Model,
    RequestOptions,
    StreamDone,
    ToolResultMessage,
    message_from_dict,
)

__all__ = [
    "KEEP_RECENT_TOKENS",
    "SUMMARIZER_PROMPT",
    "Compactor",
    "Cut",
    "NotCompacted",
    "choose_cut",
    "context_tokens",
    "file_activity",
    "last_reported",
    "needs_compaction",
    "token_ratio",
]

KEEP_RECENT_TOKENS = 20_000  # the newest part of the context stays verbatim
SUMMARY_MAX_TOKENS = 8_192  # asked of the summarizer; a longer summary is cut
CLEARING_TARGET = 0.6  # clearing alone is enough when it leaves the context under 60% of the threshold


@dataclass(frozen=True)
class Cut:
    """Where the verbatim part of the context starts, and the turn's request kept before it (if any)."""

    first_kept: int
    request: int | None = None  # the user message that started the turn the cut falls inside


@dataclass(frozen=True)
class NotCompacted:
    """Why nothing was compacted, in words for the person who asked."""

    why: str


def _role(entry: Mapping[str, Any]) -> object:
    return entry["message"].get("role")


def _valid_cuts(entries: Sequence[Mapping[str, Any]]) -> list[bool]:
    """Each entry that can start the verbatim part: a user message, or an answer whose tool calls all have
    their results, so no call is ever separated from its result (and not the answer right after a user
    message: cutting there would summarize nothing of the turn)."""
    answered = {e["message"].get("toolCallId") for e in entries if _role(e) == "toolResult"}
    valid = []
    for index, entry in enumerate(entries):
        message = entry["message"]
        if _role(entry) == "user":
            valid.append(True)
        elif index and _role(entries[index - 1]) == "user":
            valid.append(False)
        elif _role(entry) == "assistant" and message.get("stopReason") not in ("error", "aborted"):
            content = message.get("content")
            blocks = content if isinstance(content, list) else []
            calls = [b.get("id") for b in blocks if isinstance(b, dict) and b.get("type") == "toolCall"]
            valid.append(all(call in answered for call in calls))
        else:
            valid.append(False)
    return valid


def choose_cut(
    entries: Sequence[Mapping[str, Any]],
    keep_recent_tokens: int = KEEP_RECENT_TOKENS,
    ratio: float = 1.0,
    request_limit: int | None = None,
) -> Cut | None:
    """The latest cut that keeps at least `keep_recent_tokens` verbatim (else the earliest user message,
    so a short conversation is summarized by whole turns); None when there is nothing to summarize. A cut
    inside a turn keeps the turn's request, unless that alone is over `request_limit` tokens (then it is
    summarized with the rest).

    `ratio` (see `token_ratio`) turns the estimate of each message into the provider's count."""
    valid = _valid_cuts(entries)
    tokens = [estimate_tokens(message_from_dict(entry["message"])) * ratio for entry in entries]
    kept = 0.0
    cut = 0
    for index in range(len(entries) - 1, 0, -1):
        kept += tokens[index]
        if valid[index] and kept >= keep_recent_tokens:
            cut = index
            break
        if valid[index] and _role(entries[index]) == "user":
            cut = index
    if cut == 0:
        return None
    if _role(entries[cut]) == "user":
        return Cut(cut)
    request = next((i for i in range(cut - 1, -1, -1) if _role(entries[i]) == "user"), None)
    if request is not None and request_limit is not None and tokens[request] > request_limit:
        request = None
    return Cut(cut, request)


class RequestSettings(Protocol):
    """What the agent sends with every request (its `AgentConfig`), as far as compaction needs it."""

    @property
    def model(self) -> Model: ...
    @property
    def system_prompt(self) -> str: ...
    @property
    def tools(self) -> Sequence[Tool]: ...
    @property
    def request_options(self) -> RequestOptions: ...


# Sends one summary request; None when the turn was aborted meanwhile.
Summarize = Callable[[Context, RequestOptions], Awaitable[StreamDone | None]]
# What a step that made room tells: the event, and the context that remains.
Done = tuple[Compacted, list[Message]]


class Compactor:
    """The token count of one agent's context, kept as messages are added, and the ways to make room."""

    def __init__(self, session: Session, messages: Sequence[Message]) -> None:
        self.session = session
        self._estimates = running_estimates(messages)
        self._ratio = 1.0  # the provider's tokens per estimated token, as last measured
        self._refused_window: int | None = None  # the window a provider named in refusing a request
        self._overhead: tuple[RequestSettings, int] | None = (
            None  # the estimate, for the settings it was made for
        )
        self._replacements = session.cleared_output()  # of the results in the context, by tool call id
        # after a compaction, the kept messages' reported usage measured the old, longer context
        self._usage_valid_from = len(messages) if session.latest("compaction") or self._replacements else 0

    def added(self, message: Message) -> None:
        """Count a message the agent appended to its context."""
        self._estimates.append(self._estimates[-1] + estimate_tokens(message))

    def tokens(self, messages: Sequence[Message], settings: RequestSettings) -> int:
        return context_tokens(messages, self._usage_valid_from, self._calibrated_ratio(messages, settings))

    def due(self, messages: Sequence[Message], settings: RequestSettings) -> bool:
        """Whether the context is too near the model's window for the next request."""
        ratio = self._calibrated_ratio(messages, settings)
        return needs_compaction(messages, self.window(settings), self._usage_valid_from, ratio)

    def roomy(self, messages: Sequence[Message], settings: RequestSettings) -> bool:
        """Whether the context leaves room for many more rounds, so no summary is needed yet."""
        threshold = compaction_threshold(self.window(settings))
        return self.tokens(messages, settings) <= CLEARING_TARGET * threshold

    def window(self, settings: RequestSettings) -> int:
        """The model's window, or the smaller one its provider named when it refused a request."""
        window = settings.model.context_window
        return window if self._refused_window is None else min(window, self._refused_window)

    def refused(self, messages: Sequence[Message], settings: RequestSettings, error_message: str) -> None:
        """Learn from a "too long" refusal: the count it names measured the context just sent, and the
        window it names is the one to fit (a models.json may promise more than the provider has)."""
        counted, window = refused_tokens(error_message)
        estimated = self._overhead_tokens(settings) + running_estimates(messages)[-1]
        if counted is not None:
            self._ratio = max(self._ratio, token_ratio(counted, estimated))
        if window is not None:
            self._refused_window = window
        self._usage_valid_from = len(messages)  # the last answer's usage no longer measures this context

    def clear(
        self, reason: str, messages: Sequence[Message], settings: RequestSettings, keep_rounds: int
    ) -> Done | None:
        """Stub the output of older tool calls (`tool_output`); None when there is none worth clearing."""
        keep_tokens = min(KEEP_RECENT_TOKENS, self.window(settings) // 4)
        new = {
            call_id: text
            for call_id, text in clearable_output(messages, keep_rounds, keep_tokens).items()
            if call_id not in self._replacements
        }
        if not new:
            return None
        chars = sum(
            len(m.text) for m in messages if isinstance(m, ToolResultMessage) and m.tool_call_id in new
        )
        what = f"cleared the output of {len(new)} older tool call{'s' * (len(new) != 1)} ({chars // 1024} KB)"
        return self._replace(reason, "cleared", what, new, messages, settings)

    def truncate(
        self, reason: str, messages: Sequence[Message], settings: RequestSettings, over_share: int = 0
    ) -> Done | None:
        """Cut the largest tool result to its head and tail; None when none is long enough to cut (or, with
        `over_share`, none is over that share of the window)."""
        new = largest_output(messages)
        if not new:
            return None
        if over_share:
            (call_id,) = new
            largest = next(
                m for m in messages if isinstance(m, ToolResultMessage) and m.tool_call_id == call_id
            )
            tokens = estimate_tokens(largest) * self._calibrated_ratio(messages, settings)
            if tokens <= self.window(settings) / over_share:
                return None
        return self._replace(
            reason, "truncated", "cut the largest tool output to its head and tail", new, messages, settings
        )

    def _replace(
        self,
        reason: str,
        action: str,
        what: str,
        new: dict[str, str],
        messages: Sequence[Message],
        settings: RequestSettings,
    ) -> Done:
        before = self.tokens(messages, settings)
        present = {m.tool_call_id for m in messages if isinstance(m, ToolResultMessage)}
        self._replacements = {k: v for k, v in {**self._replacements, **new}.items() if k in present}
        self.session.append_cleared(self._replacements)
        remaining = with_replacements(messages, new)
        self._restart(remaining)
        return Compacted(reason, before, self.tokens(remaining, settings), what, action), remaining

    def _restart(self, messages: Sequence[Message]) -> None:
        """Count a context that replaced the one measured so far."""
        self._estimates = running_estimates(messages)
        self._usage_valid_from = len(messages)

    async def compact(
        self, reason: str, messages: Sequence[Message], settings: RequestSettings, summarize: Summarize
    ) -> Done | NotCompacted:
        """Summarize the older part of the context into a compaction entry of the session: the event to
        tell and the context that remains, or why nothing was done."""
        previous, entries = self.session.context_entries()
        window = self.window(settings)
        # on overflow the provider refused this context: keep only what cannot be cut
        keep = 0 if reason == "overflow" else min(KEEP_RECENT_TOKENS, window // 4)
        ratio = self._calibrated_ratio(messages, settings)
        cut = choose_cut(entries, keep, ratio, request_limit=window // 4)
        if cut is None:
            return NotCompacted(
                "nothing to compact: the conversation has no earlier part to summarize "
                f"(about {self.tokens(messages, settings):,} tokens, all of them recent)"
            )
        older = [message_from_dict(entry["message"]) for entry in entries[: cut.first_kept]]
        limit = int(max(window - RESERVE_TOKENS - SUMMARY_MAX_TOKENS, window // 2) * 4 / ratio)
        request = Context(
            SUMMARIZER_PROMPT, [summary_request(older, previous, limit, split_turn=cut.request is not None)]
        )
        max_tokens = min(SUMMARY_MAX_TOKENS, settings.model.max_tokens)
        done = await summarize(
            request, replace(settings.request_options, thinking_level="off", max_tokens=max_tokens)
        )
        if done is None:
            return NotCompacted("the turn was aborted while the summary was written")
        if done.error is not None:
            return NotCompacted(f"the summary request failed: {done.error.message}")
        if not done.message.text.strip():
            return NotCompacted("the model answered the summary request with no text")
        replaced_chars = len(previous or "") + 4 * sum(estimate_tokens(m) for m in older)
        summary = bounded_summary(
            "\n\n".join(part for part in (done.message.text.strip(), file_activity(older).render()) if part),
            max(min(SUMMARY_MAX_TOKENS * 4, replaced_chars * 3 // 4), 400),
        )
        return self._recorded(reason, summary, cut, entries, self.tokens(messages, settings), settings)

    def _recorded(
        self,
        reason: str,
        summary: str,
        cut: Cut,
        entries: Sequence[Mapping[str, Any]],
        tokens_before: int,
        settings: RequestSettings,
    ) -> Done:
        """Append the compaction entry that puts `summary` before the entries from `cut` on."""
        first_kept = entries[cut.first_kept]["id"] if cut.first_kept < len(entries) else None
        kept_request = {} if cut.request is None else {"keptRequestId": entries[cut.request]["id"]}
        self.session.append(
            "compaction",
            summary=summary,
            firstKeptEntryId=first_kept,
            tokensBefore=tokens_before,
            **kept_request,
        )
        remaining = self.session.messages()
        self._replacements = self.session.cleared_output()
        self._restart(remaining)
        tokens_after = self.tokens(remaining, settings)
        return Compacted(reason, tokens_before, tokens_after, summary), remaining

    def _calibrated_ratio(self, messages: Sequence[Message], settings: RequestSettings) -> float:
        """Provider tokens per estimated token, from its newest count of this context (else the last one)."""
        last = last_reported(messages, self._usage_valid_from)
        if last is not None:
            index, reported = last
            estimated = self._overhead_tokens(settings) + self._estimates[index + 1]
            self._ratio = token_ratio(reported, estimated)
        return self._ratio

    def _overhead_tokens(self, settings: RequestSettings) -> int:
        """The estimate of what every request carries besides the messages: the prompt and tool schemas."""
        if self._overhead is None or self._overhead[0] is not settings:
            schemas = json.dumps([asdict(tool.spec) for tool in settings.tools])
            tokens = estimate_text_tokens(settings.system_prompt) + estimate_text_tokens(schemas)
            self._overhead = (settings, tokens)
        return self._overhead[1]
