"""``POST /v1/cache/calibrate`` and ``/v1/cache/thresholds`` against a real server with two tenants."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import LiveServer, server_database, start_server, stop_server

from lastline.cache import SemanticCache
from lastline.cache.pairs import pairs_from_rows
from lastline.embedding import Embedder
from lastline.storage import SQLiteStorage

A = {"Authorization": "Bearer cal-a"}
B = {"Authorization": "Bearer cal-b"}

pytestmark = pytest.mark.backends("sqlite", "postgresql")


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
           backend: str) -> Iterator[LiveServer]:
    """Its own server: these tests store thresholds, which would change other tests' lookups."""
    env = {**server_database(request, backend), "LASTLINE_API_KEYS": '{"cal-a": "alpha", "cal-b": "beta"}'}
    live = start_server(tmp_path_factory.mktemp("calibrate"), env)
    yield live
    stop_server(live)


def _pairs(shared_data: Path, n: int = 700) -> list[dict[str, object]]:
    with open(shared_data / "cache" / "qqp_val.csv", encoding="utf-8-sig", newline="") as fh:
        rows = [r for _, r in zip(range(n), csv.DictReader(fh), strict=False)]
    return [{"question1": r["question1"], "question2": r["question2"], "is_duplicate": r["is_duplicate"] == "1"}
            for r in rows]


def test_calibrating_over_http_stores_the_same_threshold_as_the_python_api(
        server: LiveServer, shared_data: Path, embedder: Embedder, tmp_path: Path) -> None:
    pairs = _pairs(shared_data)
    res = httpx.post(server.url("/v1/cache/calibrate"), headers=A, timeout=120,
                     json={"pairs": pairs, "target_false_hit": 0.02})
    assert res.status_code == 200, res.text
    body = res.json()
    negatives = sum(1 for p in pairs if not p["is_duplicate"])
    assert body["stored"] is True and body["tenant"] == "alpha" and body["mode"] == "intercept"
    # served decisions: a lookup whose class holds another stored question is no negative
    assert 0.9 * negatives <= body["n_negatives"] <= negatives and body["bound"] <= 0.02 and body["curve"]
    local = SemanticCache(SQLiteStorage(tmp_path / "local.db"), embedder)
    expected = local.calibrate(pairs_from_rows(pairs), target=0.02, store=False)
    assert body["threshold"] == pytest.approx(expected.threshold, abs=1e-6)
    assert body["n_negatives"] == expected.n_negatives

    now = httpx.get(server.url("/v1/cache/thresholds"), headers=A).json()["by_language"]["en"]
    assert now["intercept"]["calibrated"] is True
    assert now["intercept"]["value"] == pytest.approx(body["threshold"])
    assert now["fallback"]["source"] == "derived_from_intercept"
    other = httpx.get(server.url("/v1/cache/thresholds"), headers=B).json()["by_language"]["en"]
    assert other["intercept"]["calibrated"] is False  # the other tenant keeps the shipped default
    lookup = httpx.post(server.url("/v1/cache/lookup"), headers=A, json={"prompt": "anything at all"}).json()
    assert lookup["threshold"] == pytest.approx(body["threshold"])

    assert httpx.delete(server.url("/v1/cache/thresholds"), headers=A).json() == {"deleted": 1}
    after = httpx.get(server.url("/v1/cache/thresholds"), headers=A).json()
    assert after["intercept"]["calibrated"] is False and after["by_language"]["en"]["intercept"]["calibrated"] is False


def test_a_dry_run_reports_without_storing(server: LiveServer, shared_data: Path) -> None:
    res = httpx.post(server.url("/v1/cache/calibrate"), headers=B, timeout=120,
                     json={"pairs": _pairs(shared_data), "target_false_hit": 0.05, "mode": "fallback",
                           "dry_run": True, "method": "clopper-pearson"})
    assert res.status_code == 200, res.text
    assert res.json()["stored"] is False and res.json()["method"] == "clopper-pearson"
    assert httpx.get(server.url("/v1/cache/thresholds"), headers=B).json()["fallback"]["calibrated"] is False


def test_too_few_non_duplicates_is_refused_with_the_count_needed(server: LiveServer, shared_data: Path) -> None:
    res = httpx.post(server.url("/v1/cache/calibrate"), headers=B, timeout=60,
                     json={"pairs": _pairs(shared_data, 60), "target_false_hit": 0.02})
    assert res.status_code == 422
    assert res.json()["error"] == "invalid_input" and "at least 133" in res.json()["detail"]


@pytest.mark.parametrize("body", [
    {},                                                             # neither pairs nor feedback
    {"pairs": [{"question1": "a", "question2": "b", "is_duplicate": True}], "from_feedback": True},
    {"pairs": [{"question1": "a", "question2": "b"}]},              # no label
    {"pairs": [{"question1": "a", "question2": "b", "is_duplicate": "maybe"}]},
    {"pairs": [{"question1": "", "question2": "b", "is_duplicate": False}]},
    {"pairs": [{"question1": "a", "question2": "b", "is_duplicate": True}], "target_false_hit": 0},
    {"pairs": [{"question1": "a", "question2": "b", "is_duplicate": True}], "confidence": 1.0},
    {"pairs": [{"question1": "a", "question2": "b", "is_duplicate": True}], "method": "bayes"},
    {"from_feedback": True, "mode": "both"},
])
def test_bad_calibration_requests_get_a_422_that_names_the_problem(server: LiveServer, body: dict) -> None:  # type: ignore[type-arg]
    res = httpx.post(server.url("/v1/cache/calibrate"), headers=B, json=body)
    assert res.status_code == 422, res.text
    assert res.json()["detail"]


def test_calibrating_from_feedback_without_enough_feedback_says_how_much_is_needed(server: LiveServer) -> None:
    res = httpx.post(server.url("/v1/cache/calibrate"), headers=B, json={"from_feedback": True})
    assert res.status_code == 422 and "feedback on at least" in res.json()["detail"]


def test_reset_thresholds_rejects_an_unknown_mode(server: LiveServer) -> None:
    assert httpx.delete(server.url("/v1/cache/thresholds?mode=sometimes"), headers=A).status_code == 422
