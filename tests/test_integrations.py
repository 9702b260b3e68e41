"""lastline as the last tier of real client stacks: LiteLLM Router, LangChain fallbacks and cache.

Each primary model points at a closed loopback port (connection refused at once); lastline, a real
server on 127.0.0.1, is the fallback and must answer with its provenance visible to the caller.
"""

from __future__ import annotations

import gc
import os
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from _upstream import running_upstream

from lastline.api.integrations.client import LastlineClient

# LiteLLM is imported inside the tests, after these: no model-cost download, no telemetry.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_TELEMETRY", "False")

# LiteLLM's streaming types trip a pydantic UserWarning (ReadOnly TypedDict items) on first use;
# it is about LiteLLM's own classes, so it is ignored here rather than failing the run.
# LiteLLM also leaves client sockets to the garbage collector; the router fixture collects them
# while these marks apply, so their ResourceWarnings do not land on some later test.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Item .* is using the `ReadOnly` qualifier:UserWarning"),
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]



def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def ll(live_server: Any) -> Iterator[LastlineClient]:
    with LastlineClient(live_server.base_url) as client:
        yield client


@pytest.fixture
def router(live_server: Any) -> Iterator[Any]:
    import litellm

    litellm.telemetry = False
    yield litellm.Router(
        model_list=[
            {"model_name": "primary", "litellm_params": {
                "model": "openai/gpt-4o", "api_base": f"http://127.0.0.1:{closed_port()}/v1",
                "api_key": "sk-unused", "timeout": 5}},
            {"model_name": "lastline", "litellm_params": {
                "model": "openai/lastline", "api_base": live_server.url("/v1"),
                "api_key": "unused", "timeout": 30}},
        ],
        fallbacks=[{"primary": ["lastline"]}],
        num_retries=0,
        timeout=30,
    )
    gc.collect()


def test_litellm_router_falls_back_to_lastline_with_provenance(ll: LastlineClient, router: Any) -> None:
    ll.cache_put("How do I reset my router password?", "Hold the reset button for ten seconds.")
    response = router.completion(
        model="primary", messages=[{"role": "user", "content": "How do I reset my router password?"}]
    )
    assert response.choices[0].message.content == "Hold the reset button for ten seconds."
    assert response.lastline["source"] == "cache"
    headers = response._hidden_params["additional_headers"]
    assert headers["llm_provider-x-lastline-source"] == "cache"
    assert headers["llm_provider-x-lastline-confidence"] == "high"
    assert headers["x-litellm-attempted-fallbacks"] == 1


def test_litellm_router_streams_the_fallback_answer(ll: LastlineClient, router: Any) -> None:
    answer = "Parcels within the country arrive in two to four working days."
    ll.cache_put("How long does domestic shipping take?", answer)
    stream = router.completion(
        model="primary", stream=True,
        messages=[{"role": "user", "content": "How long does domestic shipping take?"}],
    )
    text = "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)
    assert text == answer


@pytest.mark.parametrize(
    ("question", "extra", "status"),
    [
        ("Cancel my subscription now", {"extra_headers": {"x-lastline-operation": "write",
                                                         "idempotency-key": "cancel-1"}}, "409"),
        ("What colour is the CEO's car?", {}, "422"),
    ],
)
def test_litellm_surfaces_refusals_as_errors_without_looping(
    live_server: Any, ll: LastlineClient, router: Any, question: str, extra: dict[str, Any], status: str
) -> None:
    ll.cache_put("Cancel my subscription now", "Your subscription is cancelled.")
    line = f'"POST /v1/chat/completions HTTP/1.1" {status}'
    before = live_server.requests_logged(line)
    with pytest.raises(Exception) as caught:
        router.completion(model="primary", messages=[{"role": "user", "content": question}], **extra)
    assert ("no_degraded_writes" if status == "409" else "no tier could answer") in str(caught.value) or (
        "refusing to degrade a write" in str(caught.value)
    )
    assert live_server.requests_logged(line) == before + 1


def test_litellm_keeps_lastline_available_after_a_question_it_cannot_answer(
    ll: LastlineClient, router: Any
) -> None:
    """A 404 would put lastline into LiteLLM's cooldown and fail the next, answerable question."""
    ll.cache_put("Do you ship to Norway?", "Yes, within five working days.")
    with pytest.raises(Exception, match="no tier could answer"):
        router.completion(model="primary", messages=[{"role": "user", "content": "Who painted the lobby mural?"}])
    response = router.completion(model="primary", messages=[{"role": "user", "content": "Do you ship to Norway?"}])
    assert response.choices[0].message.content == "Yes, within five working days."


def _langchain_chain(live_server: Any) -> Any:
    from langchain_openai import ChatOpenAI

    primary = ChatOpenAI(model="gpt-4o", base_url=f"http://127.0.0.1:{closed_port()}/v1", api_key="sk-unused",
                         max_retries=0, timeout=5)
    fallback = ChatOpenAI(model="lastline", base_url=live_server.url("/v1"), api_key="unused", max_retries=0,
                          timeout=30, include_response_headers=True)
    return primary.with_fallbacks([fallback])


def test_langchain_with_fallbacks_gets_lastline_answer_and_headers(live_server: Any, ll: LastlineClient) -> None:
    ll.cache_put("Is breakfast included in the room rate?", "Yes, breakfast is served from 7 to 10.")
    message = _langchain_chain(live_server).invoke("Is breakfast included in the room rate?")
    assert message.content == "Yes, breakfast is served from 7 to 10."
    assert message.response_metadata["headers"]["x-lastline-source"] == "cache"
    assert message.response_metadata["headers"]["x-lastline-confidence"] == "high"


def test_langchain_with_fallbacks_streams_lastline_answer(live_server: Any, ll: LastlineClient) -> None:
    answer = "Checkout is at eleven; late checkout until two costs twenty euros."
    ll.cache_put("What time is checkout?", answer)
    chunks = list(_langchain_chain(live_server).stream("What time is checkout?"))
    assert "".join(str(c.content) for c in chunks) == answer
    assert chunks[0].response_metadata["headers"]["x-lastline-source"] == "cache"


def test_langchain_cache_adapter_writes_back_serves_with_provenance_and_clears(live_server: Any) -> None:
    from langchain_core.globals import set_llm_cache
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from lastline.api.integrations.langchain_cache import LastlineCache

    cache = LastlineCache(live_server.base_url, tag="langchain-test")
    model = FakeListChatModel(responses=["Online check-in opens 24 hours before departure.", "second answer"])
    set_llm_cache(cache)
    try:
        first = model.invoke("When does online check-in open?")
        assert first.content == "Online check-in opens 24 hours before departure."
        again = model.invoke("When does online check-in open?")  # served by lastline, the model is not called
        assert again.content == "Online check-in opens 24 hours before departure."
        assert again.response_metadata["lastline"]["layer"] == "exact"
        assert again.response_metadata["lastline"]["source"] == "cache"
        # a near rewrite is served too (cosine ≈ 0.99 with the default embedder), with its similarity
        rewrite = model.invoke("When does online check in open?")
        assert rewrite.content == "Online check-in opens 24 hours before departure."
        assert rewrite.response_metadata["lastline"]["layer"] in ("fuzzy", "semantic")
        assert rewrite.response_metadata["lastline"]["similarity"] > 0.9
        cache.clear()
        assert model.invoke("When does online check-in open?").content == "second answer"
    finally:
        set_llm_cache(None)
        cache.close()


def test_langchain_prompt_parses_serialized_messages_like_the_chat_endpoint() -> None:
    from langchain_core.load import dumps
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    from lastline.api.integrations.langchain_cache import langchain_prompt
    from lastline.api.openai_compat.chat_context import chat_prompt

    lc = [SystemMessage("You are terse."), HumanMessage("Weather?"),
          AIMessage("", tool_calls=[{"name": "wx", "args": {"city": "Oslo"}, "id": "1"}]),
          ToolMessage("rain", tool_call_id="1"), HumanMessage("And tomorrow?")]
    parsed = langchain_prompt(dumps(lc), "llm-config")
    assert parsed.prompt == "And tomorrow?"
    openai_style = [
        {"role": "system", "content": "You are terse."}, {"role": "user", "content": "Weather?"},
        {"role": "assistant", "content": "",
         "tool_calls": [{"function": {"name": "wx", "arguments": '{"city": "Oslo"}'}}]},
        {"role": "tool", "content": "rain", "tool_call_id": "1"}, {"role": "user", "content": "And tomorrow?"},
    ]
    assert parsed == chat_prompt(openai_style, namespace="langchain:llm-config")
    assert langchain_prompt(dumps(lc), "other-config").context != parsed.context
    plain = langchain_prompt("Tell me a joke", "llm-config")
    assert plain.prompt == "Tell me a joke" and plain.context is not None


@pytest.fixture
def upstream() -> Iterator[str]:
    with running_upstream() as url:
        yield url


def test_litellm_callback_writes_upstream_answers_back_for_the_next_outage(live_server: Any, upstream: str) -> None:
    import litellm

    from lastline.api.integrations.litellm_writeback import LastlineWriteback

    writeback = LastlineWriteback(live_server.base_url)
    previous = litellm.callbacks
    litellm.callbacks = [writeback]
    lastline = {"model_name": "lastline", "litellm_params": {
        "model": "openai/lastline", "api_base": live_server.url("/v1"), "api_key": "unused", "timeout": 30}}

    def router(api_base: str) -> Any:
        primary = {"model_name": "gpt-4o", "litellm_params": {
            "model": "openai/gpt-4o", "api_base": api_base, "api_key": "sk-unused", "timeout": 5}}
        return litellm.Router(model_list=[primary, lastline], fallbacks=[{"gpt-4o": ["lastline"]}], num_retries=0)

    messages = [{"role": "system", "content": "You are the Acme hotel concierge."},
                {"role": "user", "content": "Where can guests park their cars?"}]
    try:
        first = router(upstream).completion(model="gpt-4o", messages=messages)
        assert first.choices[0].message.content == "Upstream says: Where can guests park their cars?"
        deadline = time.monotonic() + 20  # LiteLLM runs success callbacks in the background
        while writeback.written < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert writeback.written == 1

        second = router(f"http://127.0.0.1:{closed_port()}/v1").completion(model="gpt-4o", messages=messages)
        assert second.choices[0].message.content == "Upstream says: Where can guests park their cars?"
        assert second.lastline["source"] == "cache"
        time.sleep(1.0)
        assert writeback.written == 1  # lastline's own answer is never written back
    finally:
        litellm.callbacks = previous
        writeback.close()
        gc.collect()


def test_langchain_cache_adapter_never_takes_the_model_down_with_it(caplog: pytest.LogCaptureFixture) -> None:
    from langchain_core.globals import set_llm_cache
    from langchain_core.language_models.fake_chat_models import FakeListChatModel

    from lastline.api.integrations.langchain_cache import LastlineCache

    cache = LastlineCache(f"http://127.0.0.1:{closed_port()}")
    set_llm_cache(cache)
    try:
        model = FakeListChatModel(responses=["The model still answers."])
        assert model.invoke("Is lastline up?").content == "The model still answers."
    finally:
        set_llm_cache(None)
        cache.close()
    assert "lastline cache lookup skipped: ConnectError" in caplog.text
    assert "lastline cache update skipped: ConnectError" in caplog.text
    strict = LastlineCache(f"http://127.0.0.1:{closed_port()}", strict=True)
    with pytest.raises(Exception, match="onnect"):
        strict.lookup("Is lastline up?", "llm")
    strict.close()
