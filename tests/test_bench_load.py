"""bench/load.py measures what a lookup costs: no row replays texts the server has just embedded, and
the soak is paced from the capacity the rows before it show."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import load  # noqa: E402


def _sent(stream: load.Stream, clients: int, requests: int) -> tuple[load.Row, list[int]]:
    """The bodies (by identity: the list holds some questions twice) that ``requests`` back-to-back
    requests of ``clients`` clients send, as ``load.drive`` walks them."""
    bodies = stream.bodies()
    row = load.Row(stream.path, clients, 1.0)
    prompts = [id(bodies[(k + clients * i) % len(bodies)]) for i in range(requests // clients) for k in range(clients)]
    for _ in prompts:
        row.add("200", 0.001)
    return row, prompts


def test_each_row_starts_where_the_one_before_stopped() -> None:
    stream = load.Stream("semantic", 200)
    seen: set[int] = set()
    for clients, requests in ((4, 400), (1, 1_000), (16, 4_000), (64, 6_400)):
        row, prompts = _sent(stream, clients, requests)
        assert not seen & set(prompts)
        seen |= set(prompts)
        stream.advance(row)


def test_the_retry_mix_replays_the_same_questions_every_row() -> None:
    stream = load.Stream("retry", 200)
    first, prompts = _sent(stream, 4, 400)
    stream.advance(first)
    assert _sent(stream, 4, 400)[1] == prompts


def _row(clients: int, answers: int, shed: int = 0) -> load.Row:
    row = load.Row("semantic", clients, 10.0)
    for _ in range(answers):
        row.add("200", 0.01)
    for _ in range(shed):
        row.add("503", 0.001)
    return row


def test_the_soak_paces_at_80_percent_of_the_best_row_that_shed_nothing() -> None:
    assert load.soak_rate([_row(16, 4_000), _row(64, 5_000)]) == 0.8 * 500
    # a row that shed is past capacity, however many answers it shows
    assert load.soak_rate([_row(16, 4_000), _row(64, 6_000, shed=10)]) == 0.8 * 400
    assert load.soak_rate([_row(16, 4_000, shed=5), _row(64, 6_000, shed=10)]) == 0.8 * 400


def test_the_mixed_flood_replays_stored_questions_beside_new_ones_that_never_repeat() -> None:
    stream = load.Stream("mixed", 200)
    stored = {q1 for q1, _, _ in load.qqp_pairs(200)}
    bodies = stream.bodies()
    replayed, new = bodies[0::2], bodies[1::2]
    assert all(b["prompt"] in stored and "mode" not in b for b in replayed)
    assert all(b["mode"] == "fallback" for b in new)
    # the new questions are the semantic mix's (QQP repeats a few texts of its own): not the memo's
    assert len({b["prompt"] for b in new}) > 0.95 * len(new) > 10_000
    row, prompts = _sent(stream, 16, 1_600)
    stream.advance(row)
    new_ids = set(map(id, new))
    sent_new = new_ids & set(prompts)
    assert len(sent_new) == 800
    assert not sent_new & set(map(id, stream.bodies()[:1_600]))  # the next row asks other new questions


def test_the_p99_of_a_split_is_taken_over_its_own_latencies() -> None:
    assert load.percentile([0.001 * k for k in range(1, 101)], 0.99) == 100.0
    assert load.percentile([], 0.99) != load.percentile([], 0.99)  # nan: no answer of that kind
    row = _row(16, 0)
    for k in range(1, 101):
        row.add("200", 0.001 * k)
    assert row.pct(0.99) == 100.0 and row.pct(0.5) == pytest.approx(51.0)  # a row's figures come from the same function
