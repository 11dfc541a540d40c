"""Counters, gauges and histograms with labels, and their Prometheus text exposition (format 0.0.4).

A few dozen lines instead of a client library: `GET /metrics` needs nothing more, and the base install stays
lean. Updates come from one event loop, so no lock is taken.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

Labels = tuple[str, ...]
Sample = tuple[str, tuple[tuple[str, str], ...], float]  # name suffix, label pairs, value
# Seconds: a judgment answers in tens of milliseconds (TypeSafe) to tens of seconds (a slow model).
DEFAULT_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


class Metric:
    """One metric family: `name`, its `help` line and the names of its labels."""

    kind = "untyped"

    def __init__(self, name: str, help_text: str, labels: Sequence[str] = ()) -> None:
        self.name, self.help, self.labels = name, help_text, tuple(labels)

    def _pairs(self, values: Labels) -> tuple[tuple[str, str], ...]:
        if len(values) != len(self.labels):
            raise ValueError(f"{self.name} takes the labels {self.labels}, given {values}")
        return tuple(zip(self.labels, values, strict=True))

    def samples(self) -> Iterator[Sample]:
        raise NotImplementedError


M = TypeVar("M", bound=Metric)


class Counter(Metric):
    """A count that only goes up: turns, requests, tokens, dollars."""

    kind = "counter"

    def __init__(self, name: str, help_text: str, labels: Sequence[str] = ()) -> None:
        super().__init__(name, help_text, labels)
        self._values: dict[Labels, float] = {}

    def inc(self, *labels: str, amount: float = 1.0) -> None:
        self._pairs(labels)
        self._values[labels] = self._values.get(labels, 0.0) + amount

    def value(self, *labels: str) -> float:
        return self._values.get(labels, 0.0)

    def samples(self) -> Iterator[Sample]:
        for labels, value in sorted(self._values.items()):
            yield "", self._pairs(labels), value


class Gauge(Metric):
    """A value that goes up and down; `read` (when given) measures it at each scrape instead."""

    kind = "gauge"

    def __init__(self, name: str, help_text: str, read: Callable[[], float] | None = None) -> None:
        super().__init__(name, help_text)
        self.current = 0.0
        self.read = read

    def add(self, amount: float) -> None:
        self.current += amount

    def samples(self) -> Iterator[Sample]:
        yield "", (), self.read() if self.read is not None else self.current


class Histogram(Metric):
    """Observations counted into cumulative `le` buckets, with their sum and count."""

    kind = "histogram"

    def __init__(
        self,
        name: str,
        help_text: str,
        labels: Sequence[str] = (),
        buckets: Sequence[float] = DEFAULT_BUCKETS,
    ) -> None:
        super().__init__(name, help_text, labels)
        self.bounds = (*sorted(buckets), math.inf)
        self._counts: dict[Labels, list[int]] = {}
        self._sums: dict[Labels, float] = {}

    def observe(self, value: float, *labels: str) -> None:
        self._pairs(labels)
        counts = self._counts.setdefault(labels, [0] * len(self.bounds))
        for index, bound in enumerate(self.bounds):
            if value <= bound:
                counts[index] += 1
        self._sums[labels] = self._sums.get(labels, 0.0) + value

    def samples(self) -> Iterator[Sample]:
        for labels, counts in sorted(self._counts.items()):
            pairs = self._pairs(labels)
            for bound, count in zip(self.bounds, counts, strict=True):
                # `le` as other clients write it ("1.0"), so buckets of several exporters line up
                le = "+Inf" if math.isinf(bound) else repr(float(bound))
                yield "_bucket", (*pairs, ("le", le)), count
            yield "_sum", pairs, self._sums[labels]
            yield "_count", pairs, counts[-1]


class Registry:
    """The metrics of one process, written out in the order they were made."""

    def __init__(self) -> None:
        self._metrics: list[Metric] = []

    def add(self, metric: M) -> M:
        if any(known.name == metric.name for known in self._metrics):
            raise ValueError(f"a metric named {metric.name} is already registered")
        self._metrics.append(metric)
        return metric

    def exposition(self) -> str:
        """Every metric in the Prometheus text format, for `Content-Type: text/plain; version=0.0.4`."""
        lines: list[str] = []
        for metric in self._metrics:
            lines.append(f"# HELP {metric.name} {_escape_help(metric.help)}")
            lines.append(f"# TYPE {metric.name} {metric.kind}")
            for suffix, pairs, value in metric.samples():
                shown = ",".join(f'{name}="{_escape_label(text)}"' for name, text in pairs)
                name = f"{metric.name}{suffix}{{{shown}}}" if shown else f"{metric.name}{suffix}"
                lines.append(f"{name} {_number(value)}")
        return "\n".join(lines) + "\n"


CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def _number(value: float) -> str:
    value = float(value)
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if math.isnan(value):
        return "NaN"
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else repr(float(value))


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _escape_label(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')
