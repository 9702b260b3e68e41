"""Every bad request gets a 4xx with the ``{error, detail}`` body, never a 500 — on a real server."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from conftest import LiveServer, start_server, stop_server

MAX_BODY = 4096
MAX_PROMPT = 200


@pytest.fixture(scope="module")
def small_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    env = {"LASTLINE_MAX_BODY_BYTES": str(MAX_BODY), "LASTLINE_MAX_PROMPT_CHARS": str(MAX_PROMPT)}
    server = start_server(tmp_path_factory.mktemp("limits"), env)
    yield server
    stop_server(server)


def _error(response: httpx.Response, status: int, code: str) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body = response.json()
    assert body["error"] == code
    assert isinstance(body["detail"], str) and body["detail"]
    return body


def test_body_over_content_length_limit_is_413_before_reading(small_server: LiveServer) -> None:
    big = json.dumps({"prompt": "x" * (MAX_BODY + 10)})
    r = httpx.post(small_server.url("/v1/fallback"), content=big, headers={"content-type": "application/json"})
    body = _error(r, 413, "payload_too_large")
    assert str(MAX_BODY) in body["detail"]


def test_chunked_body_over_limit_is_413(small_server: LiveServer) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"prompt": "'
        for _ in range(10):
            yield b"y" * 1000
        yield b'"}'

    r = httpx.post(small_server.url("/v1/fallback"), content=chunks(), headers={"content-type": "application/json"})
    _error(r, 413, "payload_too_large")


def test_prompt_longer_than_max_prompt_chars_is_422_naming_the_field(small_server: LiveServer) -> None:
    r = httpx.post(small_server.url("/v1/fallback"), json={"prompt": "z" * (MAX_PROMPT + 1)})
    body = _error(r, 422, "invalid_input")
    assert body["detail"].startswith("prompt:")
    assert "max_prompt_chars" in body["detail"]


def test_text_field_is_length_limited_too(small_server: LiveServer) -> None:
    r = httpx.post(small_server.url("/v1/fallback"), json={"prompt": "q", "text": "t" * (MAX_PROMPT + 1)})
    assert _error(r, 422, "invalid_input")["detail"].startswith("text:")


def test_validation_error_names_field_path_and_lists_all_fields(small_server: LiveServer) -> None:
    r = httpx.post(small_server.url("/v1/fallback"), json={"prompt": "", "operation": "delete"})
    body = _error(r, 422, "invalid_input")
    assert body["detail"].startswith("body.")
    locs = {f["loc"] for f in body["fields"]}
    assert {"body.prompt", "body.operation"} <= locs


def test_missing_required_field_is_422(small_server: LiveServer) -> None:
    body = _error(httpx.post(small_server.url("/v1/fallback"), json={}), 422, "invalid_input")
    assert body["detail"].startswith("body.prompt:")


def test_malformed_json_is_400_invalid_json(small_server: LiveServer) -> None:
    r = httpx.post(
        small_server.url("/v1/fallback"), content=b'{"prompt": ', headers={"content-type": "application/json"}
    )
    _error(r, 400, "invalid_json")


def test_json_of_the_wrong_type_is_422(small_server: LiveServer) -> None:
    _error(httpx.post(small_server.url("/v1/fallback"), json=["prompt"]), 422, "invalid_input")


def test_unknown_route_is_json_404(small_server: LiveServer) -> None:
    body = _error(httpx.get(small_server.url("/v1/nowhere")), 404, "not_found")
    assert "/v1/nowhere" in body["detail"]


def test_wrong_method_is_json_405(small_server: LiveServer) -> None:
    _error(httpx.get(small_server.url("/v1/fallback")), 405, "method_not_allowed")


def test_bad_query_parameter_is_422(small_server: LiveServer) -> None:
    body = _error(httpx.get(small_server.url("/v1/events"), params={"limit": "many"}), 422, "invalid_input")
    assert body["detail"].startswith("query.limit:")


def test_huge_declared_body_is_refused_without_waiting_for_it(small_server: LiveServer) -> None:
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(small_server.base_url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(
            b"POST /v1/fallback HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000000000\r\n\r\n{\"prompt\": \""
        )  # 1 GB announced, a dozen bytes sent: the answer must come now, not after a gigabyte
        reply = ""
        while '"}' not in reply:  # headers and body may arrive in separate segments
            chunk = sock.recv(4096).decode("latin-1")
            if not chunk:
                break
            reply += chunk
    assert reply.startswith("HTTP/1.1 413")
    assert '"payload_too_large"' in reply


def test_an_overloaded_refusal_carries_retry_after_in_both_error_shapes() -> None:
    """Shed at the door or inside a route, a 503 says when to come back; the SDKs wait that long."""
    from lastline import Overloaded
    from lastline.api.http.errors import lastline_error_response
    from lastline.api.openai_compat.errors import openai_error_response

    refused = Overloaded("cache: full; retry after 2 s", limit="cache", retry_after_s=2)
    ours = lastline_error_response(refused)
    assert ours.status_code == 503 and ours.headers["retry-after"] == "2"
    assert json.loads(bytes(ours.body)) == {"error": "overloaded", "detail": "cache: full; retry after 2 s",
                                            "limit": "cache", "retry_after_s": 2}
    openai = openai_error_response(refused)
    assert openai.status_code == 503 and openai.headers["retry-after"] == "2"
    assert "x-should-retry" not in openai.headers
    error = json.loads(bytes(openai.body))["error"]
    assert (error["code"], error["type"]) == ("overloaded", "server_error")
