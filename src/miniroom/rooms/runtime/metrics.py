"""What `GET /metrics` counts of the room runtime's work, fed by the events the turns and judgments emit."""

from __future__ import annotations

from miniroom.config.metrics import Counter, Gauge, Histogram, Registry
from miniroom.engine import AgentEvent, MessageCompleted, RetryScheduled
from miniroom.rooms.judgment import Outcome

UNKNOWN_MODEL = "unknown"  # a request that failed before the provider named its model
TOKEN_KINDS = ("input", "output", "cache_read", "cache_write")


class RoomMetrics:
    """The metrics of one `miniroom serve`: turns, model requests, tokens, cost, retries, judgments."""

    def __init__(self) -> None:
        self.registry = registry = Registry()
        self.turns = registry.add(
            Counter(
                "miniroom_turns_total",
                "Turns run, by agent (or team) and outcome: done, failed or interrupted.",
                ("agent", "outcome"),
            )
        )
        self.requests = registry.add(
            Counter(
                "miniroom_model_requests_total",
                "Requests to a model by an agent's turns, each attempt (failed ones too).",
                ("agent", "model"),
            )
        )
        self.tokens = registry.add(
            Counter(
                "miniroom_tokens_total",
                "Tokens of the agents' model requests, by kind: input, output, cache_read, cache_write.",
                ("agent", "model", "kind"),
            )
        )
        self.cost = registry.add(
            Counter(
                "miniroom_cost_usd_total",
                "What the agents' model requests cost, in US dollars (from the models' prices).",
                ("agent", "model"),
            )
        )
        self.retries = registry.add(
            Counter(
                "miniroom_retries_total",
                "Failed model requests that were retried.",
                ("agent", "model"),
            )
        )
        self.judgments = registry.add(
            Counter(
                "miniroom_judgments_total",
                "Judgments asked (participation, mid-turn), by backend and outcome: yes, no, or the failure.",
                ("agent", "backend", "outcome"),
            )
        )
        self.judgment_seconds = registry.add(
            Histogram(
                "miniroom_judgment_seconds", "How long a judgment took to answer, in seconds.", ("backend",)
            )
        )
        self.turns_waiting = registry.add(
            Gauge(
                "miniroom_turns_waiting",
                "Turns queued behind a running turn of the same agent and conversation.",
            )
        )
        self.event_streams = registry.add(
            Gauge("miniroom_event_streams", "Open event streams (web chat pages following the rooms).")
        )

    def turn_ended(self, agent: str, outcome: str) -> None:
        self.turns.inc(agent, outcome)

    def on_event(self, agent: str, event: AgentEvent) -> None:
        """An engine event of `agent`'s turn: each completed request counts with its usage, each retry."""
        if isinstance(event, MessageCompleted):
            message = event.message
            model, usage = message.model or UNKNOWN_MODEL, message.usage
            self.requests.inc(agent, model)
            for kind in TOKEN_KINDS:
                self.tokens.inc(agent, model, kind, amount=getattr(usage, kind))
            self.cost.inc(agent, model, amount=usage.cost)
        elif isinstance(event, RetryScheduled):
            self.retries.inc(agent, event.model or UNKNOWN_MODEL)

    def judged(self, agent: str, outcome: Outcome) -> None:
        backend = outcome.backend.value
        if outcome.verdict is not None:
            result = outcome.verdict.value
        else:
            result = outcome.failure.value if outcome.failure is not None else "none"
        self.judgments.inc(agent, backend, result)
        self.judgment_seconds.observe(outcome.seconds, backend)

    def exposition(self) -> str:
        return self.registry.exposition()
