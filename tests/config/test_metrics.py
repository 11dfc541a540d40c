"""The Prometheus text exposition written by hand, read back by the `prometheus_client` parser."""

from __future__ import annotations

import pytest
from prometheus_client.parser import text_string_to_metric_families

from miniroom.config.metrics import Counter, Gauge, Histogram, Registry


def parsed(registry: Registry) -> dict[str, list[tuple[str, dict[str, str], float]]]:
    return {
        family.name: [(s.name, s.labels, s.value) for s in family.samples]
        for family in text_string_to_metric_families(registry.exposition())
    }


def test_labels_with_quotes_backslashes_and_newlines_read_back_as_written() -> None:
    registry = Registry()
    counter = registry.add(Counter("odd_total", 'Help with a \\ and a\nnewline and "quotes".', ("agent",)))
    awkward = 'a "quoted" C:\\path\nand a second line'
    counter.inc(awkward, amount=2.5)
    counter.inc("plain")
    assert parsed(registry)["odd"] == [
        ("odd_total", {"agent": awkward}, 2.5),
        ("odd_total", {"agent": "plain"}, 1.0),
    ]


def test_a_histogram_counts_into_cumulative_buckets_with_sum_and_count() -> None:
    registry = Registry()
    histogram = registry.add(Histogram("wait_seconds", "Waits.", buckets=(0.1, 1.0)))
    for value in (0.05, 0.5, 0.7, 3.0):
        histogram.observe(value)
    read = parsed(registry)["wait_seconds"]
    samples = {(name, labels.get("le", "")): value for name, labels, value in read}
    assert samples == {
        ("wait_seconds_bucket", "0.1"): 1,
        ("wait_seconds_bucket", "1.0"): 3,
        ("wait_seconds_bucket", "+Inf"): 4,
        ("wait_seconds_sum", ""): pytest.approx(4.25),
        ("wait_seconds_count", ""): 4,
    }


def test_a_gauge_reads_its_value_at_each_scrape() -> None:
    registry = Registry()
    waiting = [3]
    registry.add(Gauge("waiting", "Waiting.", read=lambda: waiting[0]))
    assert parsed(registry)["waiting"] == [("waiting", {}, 3)]
    waiting[0] = 0
    assert parsed(registry)["waiting"] == [("waiting", {}, 0)]


def test_wrong_labels_and_a_second_metric_of_one_name_are_refused() -> None:
    registry = Registry()
    counter = registry.add(Counter("turns_total", "Turns.", ("agent", "outcome")))
    wrong = r"turns_total takes the labels \('agent', 'outcome'\), given \('x',\)"
    with pytest.raises(ValueError, match=wrong):
        counter.inc("x")
    with pytest.raises(ValueError, match="a metric named turns_total is already registered"):
        registry.add(Counter("turns_total", "Again."))
