"""The OpenAI-compatible face on a real server, driven by the official openai client and httpx."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import openai
import pytest

from lastline import InvalidInput, NoDegradedWrites, NoFallbackAnswer, Unauthorized
from lastline.api.integrations.client import LastlineClient

pytestmark = pytest.mark.backends("sqlite", "postgresql")



@pytest.fixture
def ll(live_server: Any) -> Iterator[LastlineClient]:
    with LastlineClient(live_server.base_url) as client:
        yield client


@pytest.fixture
def oai(live_server: Any) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=live_server.url("/v1"), api_key="unused", max_retries=2) as client:
        yield client


def test_openai_client_gets_the_cached_answer_with_provenance(ll: LastlineClient, oai: openai.OpenAI) -> None:
    ll.cache_put("How long is the refund window for online orders?", "30 days from delivery.")
    raw = oai.chat.completions.with_raw_response.create(
        model="lastline", messages=[{"role": "user", "content": "How long is the refund window for online orders?"}]
    )
    completion = raw.parse()
    assert completion.choices[0].message.content == "30 days from delivery."
    assert completion.choices[0].finish_reason == "stop"
    assert raw.headers["x-lastline-source"] == "cache"
    assert raw.headers["x-lastline-confidence"] == "high"
    envelope = completion.model_extra["lastline"]
    assert envelope["source"] == "cache"
    assert envelope["degradation_depth"] == 0
    assert envelope["notice"]
    assert completion.usage is not None and completion.usage.completion_tokens > 0


def test_openai_client_streams_the_answer_with_usage(ll: LastlineClient, oai: openai.OpenAI) -> None:
    answer = "Our support desk is open from nine to five, Monday to Friday, except public holidays."
    ll.cache_put("When is the support desk open?", answer)
    raw = oai.chat.completions.with_raw_response.create(
        model="lastline", stream=True, stream_options={"include_usage": True},
        messages=[{"role": "user", "content": "When is the support desk open?"}],
    )
    assert raw.headers["x-lastline-source"] == "cache"
    assert raw.headers["content-type"].startswith("text/event-stream")
    chunks = list(raw.parse())
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[0].model_extra["lastline"]["source"] == "cache"
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == answer
    assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) > 1
    finals = [c for c in chunks if c.choices and c.choices[0].finish_reason]
    assert [c.choices[0].finish_reason for c in finals] == ["stop"]
    assert chunks[-1].choices == [] and chunks[-1].usage is not None


def test_a_knowledge_base_answer_streams_with_its_citations(ll: LastlineClient, oai: openai.OpenAI) -> None:
    ll.kb_add_document(title="Pet policy", source="policies/pets.md",
                       text="# Pets\n\nSmall dogs and cats are welcome in all rooms for a fee of 20 euros per night.")
    raw = oai.chat.completions.with_raw_response.create(
        model="lastline", stream=True, messages=[{"role": "user", "content": "Are dogs allowed in the rooms?"}]
    )
    assert raw.headers["x-lastline-source"] == "kb"
    assert raw.headers["x-lastline-degradation-depth"] == "3"
    chunks = list(raw.parse())
    assert "dogs and cats are welcome" in "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    envelope = chunks[0].model_extra["lastline"]
    assert envelope["source"] == "kb"
    assert envelope["citations"][0]["source"] == "policies/pets.md"
    assert envelope["citations"][0]["title"] == "Pet policy"


def test_nothing_to_answer_is_an_openai_error_sent_once(live_server: Any, oai: openai.OpenAI) -> None:
    before = live_server.requests_logged('"POST /v1/chat/completions HTTP/1.1" 422')
    with pytest.raises(openai.UnprocessableEntityError) as caught:
        oai.chat.completions.create(
            model="lastline", messages=[{"role": "user", "content": "Which moon of Neptune is the coldest?"}]
        )
    assert caught.value.code == "no_fallback_answer"
    assert caught.value.body["type"] == "not_found_error"
    assert live_server.requests_logged('"POST /v1/chat/completions HTTP/1.1" 422') == before + 1


def test_a_write_is_refused_once_with_its_key_even_by_a_retrying_client(
    live_server: Any, ll: LastlineClient, oai: openai.OpenAI
) -> None:
    ll.cache_put("Transfer 500 euros to Alice", "Done: 500 euros sent to Alice.")
    before = live_server.requests_logged('"POST /v1/chat/completions HTTP/1.1" 409')
    with pytest.raises(openai.ConflictError) as caught:
        oai.chat.completions.create(
            model="lastline", messages=[{"role": "user", "content": "Transfer 500 euros to Alice"}],
            extra_body={"lastline": {"operation": "write", "idempotency_key": "pay-7781"}},
        )
    assert caught.value.code == "no_degraded_writes"
    assert isinstance(caught.value.body, dict) and caught.value.body["idempotency_key"] == "pay-7781"
    assert caught.value.response.headers["x-should-retry"] == "false"
    # the openai SDK retries 409 unless told not to: exactly one request reached the server
    assert live_server.requests_logged('"POST /v1/chat/completions HTTP/1.1" 409') == before + 1


def test_a_write_marked_by_headers_is_refused_with_the_key_echoed(live_server: Any) -> None:
    response = httpx.post(
        live_server.url("/v1/chat/completions"),
        json={"model": "lastline", "stream": True, "messages": [{"role": "user", "content": "Delete my account"}]},
        headers={"x-lastline-operation": "write", "Idempotency-Key": "del-1"},
    )
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "no_degraded_writes"
    assert response.json()["error"]["idempotency_key"] == "del-1"


def test_models_are_listed_and_retrievable(oai: openai.OpenAI) -> None:
    ids = [m.id for m in oai.models.list()]
    assert "lastline" in ids
    assert oai.models.retrieve("lastline").owned_by == "lastline"
    assert oai.models.retrieve("lastline/gpt-4o").id == "lastline/gpt-4o"
    with pytest.raises(openai.NotFoundError):
        oai.models.retrieve("gpt-5")


def test_invalid_requests_get_openai_shaped_400s(live_server: Any) -> None:
    for body in ({"model": "lastline", "messages": []},
                 {"model": "lastline", "messages": [{"role": "system", "content": "only a system prompt"}]},
                 {"model": "lastline", "messages": [{"role": "user", "content": "why? " * 8_000}]},
                 {"model": "lastline", "messages": [{"role": "user", "content": "x" * 1_000_001}]},
                 {"model": "lastline", "messages": [{"role": "user", "content": "hi"}],
                  "lastline": {"idempotency_key": "k" * 201}}):
        response = httpx.post(live_server.url("/v1/chat/completions"), json=body)
        assert response.status_code == 400
        error = response.json()["error"]
        assert error["type"] == "invalid_request_error" and error["code"] == "invalid_input"
        assert error["message"]
    response = httpx.post(live_server.url("/v1/chat/completions"), headers={"X-Lastline-Budget-Ms": "never"},
                          json={"model": "lastline", "messages": [{"role": "user", "content": "hi"}]})
    assert response.status_code == 400 and "x-lastline-budget-ms" in response.json()["error"]["message"]


def test_upstream_answer_written_back_is_served_for_the_same_conversation(
    live_server: Any, oai: openai.OpenAI
) -> None:
    messages = [{"role": "system", "content": "You are the help desk of Acme Rail."},
                {"role": "user", "content": "Can I take a bicycle on the train?"}]
    upstream = {"id": "chatcmpl-up", "object": "chat.completion", "model": "gpt-4o-2024-08-06",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": "Yes, outside rush hours, for free."}}]}
    stored = httpx.post(live_server.url("/v1/chat/completions/writeback"),
                        json={"messages": messages, "completion": upstream})
    assert stored.status_code == 201
    assert stored.json()["context"].startswith("chat:")

    completion = oai.chat.completions.create(model="lastline", messages=messages)
    assert completion.choices[0].message.content == "Yes, outside rush hours, for free."
    assert completion.model_extra["lastline"]["source"] == "cache"
    other_system = [{"role": "system", "content": "You are a poet."}, messages[1]]
    with pytest.raises(openai.UnprocessableEntityError):
        oai.chat.completions.create(model="lastline", messages=other_system)


def test_a_long_conversation_is_answered_alike_off_the_event_loop(live_server: Any, oai: openai.OpenAI) -> None:
    """A body past LOOP_BODY_MAX_BYTES is turned into its cache key on a thread: same key, same answer."""
    from lastline.api.openai_compat.routes import LOOP_BODY_MAX_BYTES

    policy = "Tickets are refundable up to 24 hours before departure. " * (LOOP_BODY_MAX_BYTES // 50)
    for system, answer in ((policy, "Yes, up to a day before."), ("You are the help desk of Acme Rail.", "Yes.")):
        messages = [{"role": "system", "content": system}, {"role": "user", "content": "Can I get a refund?"}]
        assert httpx.post(live_server.url("/v1/chat/completions/writeback"),
                          json={"messages": messages, "content": answer}).status_code == 201
        for stream in (False, True):
            sent = httpx.post(live_server.url("/v1/chat/completions"),
                              json={"model": "lastline", "messages": messages, "stream": stream})
            assert sent.status_code == 200 and sent.headers["x-lastline-source"] == "cache"
            assert (int(sent.request.headers["content-length"]) > LOOP_BODY_MAX_BYTES) == (system == policy)
            assert answer in sent.text
        refused = httpx.post(live_server.url("/v1/chat/completions"), headers={"Idempotency-Key": "w-1"},
                             json={"model": "lastline", "messages": messages, "lastline": {"operation": "write"}})
        assert refused.status_code == 409 and "w-1" in refused.text


@pytest.mark.parametrize(
    ("completion", "message"),
    [
        ({"choices": [{"finish_reason": "length", "message": {"content": "Yes, outside"}}]}, "finish_reason"),
        ({"choices": [{"finish_reason": "stop", "message": {"content": "x"}}], "lastline": {}}, "lastline"),
        ({"choices": [{"finish_reason": "tool_calls", "message": {"content": None, "tool_calls": [{}]}}]},
         "finish_reason"),
    ],
)
def test_writeback_refuses_what_must_not_be_cached(live_server: Any, completion: dict[str, Any], message: str) -> None:
    response = httpx.post(
        live_server.url("/v1/chat/completions/writeback"),
        json={"messages": [{"role": "user", "content": "Can I bring my dog?"}], "completion": completion},
    )
    assert response.status_code == 400
    assert message in response.json()["error"]["message"]


def test_client_round_trip_and_errors_as_lastline_exceptions(ll: LastlineClient) -> None:
    entry = ll.cache_put("What is the Wi-Fi password in the lobby?", "It is printed on your key card.")
    found = ll.cache_lookup("What is the Wi-Fi password in the lobby?")
    assert found.hit and found.entry_id == entry and found.layer == "exact"
    answer = ll.fallback("What is the Wi-Fi password in the lobby?")
    assert answer.answer == "It is printed on your key card." and answer.source.value == "cache"
    with pytest.raises(NoDegradedWrites) as refused:
        ll.fallback("Book room 12 for tonight", operation="write", idempotency_key="book-12")
    assert refused.value.extra["idempotency_key"] == "book-12"
    with pytest.raises(NoFallbackAnswer):
        ll.fallback("How many lighthouses are there in Portugal?")


def test_client_writes_chat_answers_back_and_reads_openai_shaped_errors(ll: LastlineClient, oai: openai.OpenAI) -> None:
    messages = [{"role": "system", "content": "You answer for the city library."},
                {"role": "user", "content": "Can I renew a book online?"}]
    ll.chat_writeback(messages, content="Yes, up to three times, in your library account.")
    reply = oai.chat.completions.create(model="lastline", messages=messages)
    assert reply.choices[0].message.content == "Yes, up to three times, in your library account."
    with pytest.raises(InvalidInput, match="finish_reason"):
        ll.chat_writeback(messages, completion={"choices": [{"finish_reason": "length", "message": {"content": "Ye"}}]})


def test_tenants_stay_apart_and_missing_keys_are_openai_401s(tenant_server: Any) -> None:
    with LastlineClient(tenant_server.base_url, api_key="key-a") as acme:
        acme.cache_put("Where is the Acme head office?", "In Springfield.")
    base = tenant_server.url("/v1")
    with openai.OpenAI(base_url=base, api_key="key-a") as a, openai.OpenAI(base_url=base, api_key="key-b") as b:
        question = [{"role": "user", "content": "Where is the Acme head office?"}]
        assert a.chat.completions.create(model="lastline", messages=question).choices[0].message.content == (
            "In Springfield."
        )
        with pytest.raises(openai.UnprocessableEntityError):
            b.chat.completions.create(model="lastline", messages=question)
    with openai.OpenAI(base_url=base, api_key="wrong") as nobody, pytest.raises(openai.AuthenticationError):
        nobody.models.list()
    with LastlineClient(tenant_server.base_url) as anonymous, pytest.raises(Unauthorized):
        anonymous.cache_lookup("Where is the Acme head office?")
