"""bench/load.py measures what a lookup costs: no row replays texts the server has just embedded, and
the soak is paced from the capacity the rows before it show."""

from __future__ import annotations

import sys
from pathlib import Path

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
