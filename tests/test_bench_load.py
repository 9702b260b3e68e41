"""bench/load.py measures what a lookup costs: no row replays texts the server has just embedded, and
the soak is paced from the capacity the rows before it show."""

from __future__ import annotations

import json
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import load  # noqa: E402
from _http_client import get_request, post_request  # noqa: E402


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


# -- the refusal floor: a real server process, spoken to over a socket -------------------------------
@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    proc, base = load.start_floor(tmp_path_factory.mktemp("floor"))
    host, port = base.removeprefix("http://").split(":")
    try:
        yield host, int(port)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _replies(sock: socket.socket, count: int) -> list[tuple[int, dict[str, str], bytes]]:
    """``count`` HTTP/1.1 replies read off ``sock``: status, headers (lower-case names), body."""
    replies = []
    with sock.makefile("rb") as reader:
        for _ in range(count):
            status_line = reader.readline()
            assert status_line, f"the floor closed the connection after {len(replies)} of {count} replies"
            headers = {}
            while (line := reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                headers[name.strip().lower()] = value.strip()
            replies.append((int(status_line.split()[1]), headers, reader.read(int(headers["content-length"]))))
    return replies


def test_the_floor_refuses_as_lastline_does(floor: tuple[str, int]) -> None:
    """The floor stands for lastline's refusal: the same status, ``Retry-After`` and body."""
    from lastline import Overloaded
    from lastline.api.http.errors import lastline_error_response

    ours = lastline_error_response(Overloaded("cache: full (160 in flight at most); retry after 1 s",
                                              limit="cache", retry_after_s=1))
    with socket.create_connection(floor) as sock:
        sock.sendall(post_request(floor[0], "/v1/cache/lookup", {"prompt": "hello"}))
        [(status, headers, body)] = _replies(sock, 1)
    assert status == ours.status_code == 503
    assert headers["retry-after"] == ours.headers["retry-after"]
    assert json.loads(body) == json.loads(bytes(ours.body))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bodies=st.lists(st.one_of(st.none(), st.text(max_size=300)), min_size=1, max_size=6),
       cuts=st.lists(st.integers(min_value=1, max_value=4000), max_size=6))
def test_the_floor_answers_each_request_once_however_its_bytes_arrive(
        floor: tuple[str, int], bodies: list[str | None], cuts: list[int]) -> None:
    """Requests pipelined on one kept-alive connection and cut anywhere into separate writes (a
    ``None`` is a ``GET /readyz``): one reply each, in order, and the connection stays open."""
    stream = b"".join(get_request(floor[0], "/readyz") if b is None
                      else post_request(floor[0], "/v1/cache/lookup", {"prompt": b}) for b in bodies)
    with socket.create_connection(floor) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        start = 0
        for cut in sorted({c for c in cuts if c < len(stream)}):
            sock.sendall(stream[start:cut])
            time.sleep(0.002)  # let the floor read the piece on its own
            start = cut
        sock.sendall(stream[start:])
        statuses = [status for status, _, _ in _replies(sock, len(bodies))]
        assert statuses == [200 if b is None else 503 for b in bodies]
        sock.sendall(get_request(floor[0], "/readyz"))
        assert _replies(sock, 1)[0][0] == 200
