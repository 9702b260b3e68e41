"""The Python client's public names, its results (the tiers' own types) and how it turns error bodies into errors."""

from __future__ import annotations

from dataclasses import fields

import httpx
import pytest
from conftest import LiveServer
from pydantic import TypeAdapter

import lastline.api.integrations.client
import lastline.api.integrations.langchain_cache
import lastline.api.openai_compat.chat_context
from lastline import (
    Confidence,
    InvalidInput,
    LastlineError,
    NoDegradedWrites,
    NoFallbackAnswer,
    StorageError,
    Unauthorized,
)
from lastline.api.integrations.client import LastlineClient, raise_for_error
from lastline.cache import LookupResult
from lastline.kb import SearchResult
from lastline.rules import Entity, ExtractResult


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


def test_results_are_the_tiers_own_types_and_the_servers_json_unchanged(live_server: LiveServer) -> None:
    # The server answers with the tier's class, the client parses into the same class: dumping the
    # parsed value gives back exactly the JSON the server sent (no field restated, lost or renamed).
    with LastlineClient(live_server.base_url) as ll:
        entry = ll.cache_put("Which platform does the night train leave from?", "Platform 9, after 23:00.")
        raw = ll.request("POST", "/v1/cache/lookup", {"prompt": "Which platform does the night train leave from?"})
        found = ll.cache_lookup("Which platform does the night train leave from?")
        assert type(found) is LookupResult and found.hit and found.entry_id == entry
        assert found.confidence is Confidence.HIGH and found.metadata is None
        assert set(raw) == {f.name for f in fields(LookupResult)} - {"metadata"}
        # Each lookup has its own id and age; every other field is what the server sent the first time.
        assert _dump(found) == {**raw, "lookup_id": found.lookup_id, "age_s": found.age_s}

        ll.kb_add_document(title="Night trains", text="The night train leaves from platform 9 after 23:00.",
                           source="trains.md", doc_id="trains")
        # Keyword scores only: the English space fills in the background, and a hybrid score read before
        # and after it is ready differs, though both answers are right.
        raw_hits = ll.request("POST", "/v1/kb/search", {"query": "night train platform", "k": 3,
                                                        "mode": "keyword"})["results"]
        hits = ll.kb_search("night train platform", k=3, mode="keyword")
        assert hits and all(type(h) is SearchResult for h in hits)
        assert [_dump(h) for h in hits] == raw_hits
        assert "question" not in raw_hits[0] and "answer" not in raw_hits[0]  # in-process fields stay in

        body = {"text": "Pay 30 USD by 2024-06-19", "reference_time": "2024-06-12T10:00:00"}
        raw_entities = ll.request("POST", "/v1/rules/entities", body)["entities"]
        entities = ll.rules_entities(body["text"], reference_time=body["reference_time"])
        assert entities and all(type(e) is Entity for e in entities)
        assert [_dump(e) for e in entities] == raw_entities

        extraction = ll.rules_extract("Email jane@example.com or call", pack="contact")
        assert type(extraction) is ExtractResult and extraction.pack == "contact"
        assert _dump(extraction) == ll.request("POST", "/v1/rules/extract",
                                               {"text": "Email jane@example.com or call", "pack": "contact"})


def _dump(value: object) -> object:
    return TypeAdapter(type(value)).dump_python(value, mode="json")
