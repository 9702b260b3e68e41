"""schemathesis fuzzes every operation of ``/openapi.json`` on a real server: no input gives a 5xx.

Bounded on purpose (a few examples per operation) so it stays a smoke test of the error
handling; the checks are "not a server error" plus the promise that every error body is JSON
with ``error`` and ``detail`` (OpenAI-compatible routes answer in OpenAI's error shape instead).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from conftest import LiveServer, start_server, stop_server
from hypothesis import HealthCheck, given, settings


@pytest.fixture(scope="module")
def fuzz_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    # Small limits so generated bodies also exercise 413/422 paths without slowing the run.
    env = {"LASTLINE_MAX_PROMPT_CHARS": "2000", "LASTLINE_MAX_BODY_BYTES": "65536"}
    server = start_server(tmp_path_factory.mktemp("fuzz"), env)
    yield server
    stop_server(server)


def errors_have_our_shape(response: schemathesis.Response, case: schemathesis.Case) -> None:
    if response.status_code < 400:
        return
    body = response.json()
    if case.path.startswith(("/v1/chat", "/v1/models")):
        assert isinstance(body.get("error"), dict) and "message" in body["error"], body
    else:
        assert isinstance(body.get("error"), str) and isinstance(body.get("detail"), str), body


def test_no_input_gives_a_server_error(fuzz_server: LiveServer) -> None:
    # Driven through plain hypothesis: schemathesis' own pytest plugin trips over pytest 9.
    api = schemathesis.openapi.from_url(fuzz_server.url("/openapi.json"))
    operations = [result.ok() for result in api.get_all_operations()]
    assert len(operations) >= 10
    tried: list[str] = []
    for operation in operations:

        @settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True,
                  database=None)
        @given(case=operation.as_strategy())
        def check(case: schemathesis.Case) -> None:
            response = case.call(timeout=30)
            assert response.status_code < 500, (case.method, case.path, case.body, response.text[:500])
            errors_have_our_shape(response, case)

        check()
        tried.append(f"{operation.method.upper()} {operation.path}")
    assert "POST /v1/fallback" in tried


def test_sequences_of_linked_calls_give_no_server_error(fuzz_server: LiveServer) -> None:
    """Stateful: chains the API's own links (entry created → read → feedback → deleted; pack uploaded →
    read → deleted; document added → read), which schemathesis infers from the schema, and checks every
    step as the single-call fuzzing does."""
    api = schemathesis.openapi.from_url(fuzz_server.url("/openapi.json"))
    base = api.as_state_machine()
    links = [name for name in dir(base) if "__POST_" in name or "__GET_" in name or "__DELETE_" in name]
    assert any("DELETE_v1_cache_entries" in name for name in links), links
    assert any("GET_v1_rules_packs_name" in name for name in links), links
    calls: list[str] = []

    class Chains(base):  # type: ignore[misc, valid-type]
        def validate_response(self, response: schemathesis.Response, case: schemathesis.Case,
                              additional_checks: object = None, **kwargs: object) -> None:
            calls.append(f"{case.method} {case.path}")
            assert response.status_code < 500, (case.method, case.path, case.body, response.text[:500])
            errors_have_our_shape(response, case)

    Chains.run(settings=settings(max_examples=25, stateful_step_count=6, deadline=None, derandomize=True,
                                 suppress_health_check=list(HealthCheck), database=None))
    assert len(calls) >= 50 and any(c.startswith("DELETE") for c in calls), calls[:20]
