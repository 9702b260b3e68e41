"""The Python client's public names, and how it turns error bodies back into lastline errors."""

from __future__ import annotations

import httpx
import pytest

import lastline.api.integrations.client
import lastline.api.integrations.langchain_cache
import lastline.api.openai_compat.chat_context
from lastline import InvalidInput, LastlineError, NoDegradedWrites, NoFallbackAnswer, StorageError, Unauthorized
from lastline.api.integrations.client import raise_for_error


def test_public_names_are_pinned() -> None:
    assert sorted(lastline.api.integrations.client.__all__) == [
        "CacheLookup", "Entity", "Extraction", "LastlineClient", "SearchResult", "raise_for_error",
    ]
    assert sorted(lastline.api.integrations.langchain_cache.__all__) == ["LastlineCache", "langchain_prompt"]
    assert sorted(lastline.api.openai_compat.chat_context.__all__) == [
        "ChatPrompt", "MODEL_IDS", "chat_prompt", "message_text", "model_scope",
    ]


def _response(status: int, body: object) -> httpx.Response:
    return httpx.Response(status, json=body, request=httpx.Request("POST", "http://127.0.0.1/v1/x"))


@pytest.mark.parametrize(
    ("status", "body", "error", "extra"),
    [
        (404, {"error": "no_fallback_answer", "detail": "none", "path": "cache:empty"}, NoFallbackAnswer,
         {"path": "cache:empty"}),
        (409, {"error": "no_degraded_writes", "detail": "no", "idempotency_key": "k"}, NoDegradedWrites,
         {"idempotency_key": "k"}),
        (409, {"error": {"message": "no", "type": "conflict_error", "code": "no_degraded_writes", "param": None,
                         "idempotency_key": "k"}}, NoDegradedWrites, {"idempotency_key": "k"}),
        (422, {"error": {"message": "none", "type": "not_found_error", "code": "no_fallback_answer"}},
         NoFallbackAnswer, {}),
        (400, {"error": {"message": "bad", "type": "invalid_request_error", "code": "invalid_input"}},
         InvalidInput, {}),
        (401, {"error": "unauthorized", "detail": "unknown API key"}, Unauthorized, {}),
        (503, {"unexpected": True}, StorageError, {"unexpected": True}),
        (500, {"error": "something_new", "detail": "?"}, LastlineError, {}),
    ],
)
def test_error_bodies_of_both_shapes_become_lastline_errors(
    status: int, body: object, error: type[LastlineError], extra: dict[str, object]
) -> None:
    with pytest.raises(error) as caught:
        raise_for_error(_response(status, body))
    assert type(caught.value) is error
    assert caught.value.extra == extra


def test_success_and_non_json_errors() -> None:
    raise_for_error(_response(200, {"ok": True}))
    bare = httpx.Response(502, text="Bad Gateway", request=httpx.Request("GET", "http://127.0.0.1/"))
    with pytest.raises(LastlineError, match="HTTP 502"):
        raise_for_error(bare)
