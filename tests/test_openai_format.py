"""OpenAI shapes built from an answer envelope, and where lastline's options are read from."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lastline import Answer, Confidence, InvalidInput, Source
from lastline.api.openai_compat.format import (
    answer_text,
    completion_body,
    estimate_tokens,
    provenance_headers,
    split_pieces,
    sse_events,
)
from lastline.api.openai_compat.models import ChatCompletionRequest, lastline_options

ANSWER = Answer(answer="Refunds take 30 days.", source=Source.CACHE, confidence=Confidence.HIGH,
                degradation_depth=0, notice="Answered from a previously cached response.", layer="exact")


@given(st.text(max_size=300), st.integers(min_value=1, max_value=40))
def test_stream_pieces_join_back_to_the_text(text: str, size: int) -> None:
    pieces = split_pieces(text, size)
    assert "".join(pieces) == text
    assert all(pieces)


def test_cjk_text_is_cut_by_length() -> None:
    pieces = split_pieces("退款会在三十天内原路退回到您的账户" * 3, 8)
    assert len(pieces) > 3
    assert max(len(p) for p in pieces) <= 8


def test_token_estimate_counts_cjk_characters_and_quarter_words() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("退款") == 2
    assert estimate_tokens("abcdefgh") == 2


def test_completion_body_is_an_openai_chat_completion_with_the_envelope() -> None:
    body = completion_body(ANSWER, "Refunds take 30 days.", model="lastline", n=2,
                           token_usage={"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3})
    assert body["object"] == "chat.completion"
    assert [c["index"] for c in body["choices"]] == [0, 1]
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "Refunds take 30 days.", "refusal": None}
    assert body["choices"][0]["finish_reason"] == "stop"
    assert body["lastline"]["source"] == "cache"
    assert body["lastline"]["degradation_depth"] == 0
    assert "answer" not in body["lastline"]


def test_stream_is_role_content_final_usage_then_done() -> None:
    usage = {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}
    events = list(sse_events(ANSWER, ANSWER.answer or "", model="lastline", n=1, token_usage=usage))
    assert all(e.startswith("data: ") and e.endswith("\n\n") for e in events)
    assert events[-1] == "data: [DONE]\n\n"
    chunks = [json.loads(e[6:]) for e in events[:-1]]
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert chunks[0]["lastline"]["confidence"] == "high"
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    assert text == ANSWER.answer
    final = chunks[-2]
    assert final["choices"][0]["finish_reason"] == "stop"
    assert final["lastline"]["source"] == "cache"
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"] == usage
    assert all(c["usage"] is None for c in chunks[:-1])


def test_stream_without_usage_has_no_usage_chunk() -> None:
    events = list(sse_events(ANSWER, "x", model="lastline", n=1, token_usage=None))
    chunks = [json.loads(e[6:]) for e in events[:-1]]
    assert all("usage" not in c for c in chunks)
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"


def test_fields_only_answers_become_json_and_the_notice_can_lead() -> None:
    rules = Answer(answer=None, source=Source.RULES, confidence=Confidence.MEDIUM, degradation_depth=2,
                   fields={"甲方": "甲公司"}, notice="n")
    assert json.loads(answer_text(rules)) == {"甲方": "甲公司"}
    assert answer_text(ANSWER, notice_in_content=True).startswith(ANSWER.notice + "\n\n")


def test_provenance_headers_are_ascii() -> None:
    headers = provenance_headers(ANSWER)
    assert headers["x-lastline-source"] == "cache"
    assert headers["x-lastline-confidence"] == "high"
    assert all(v.isascii() for v in headers.values())


def _request(**body: object) -> ChatCompletionRequest:
    return ChatCompletionRequest.model_validate({"messages": [{"role": "user", "content": "q"}], **body})


@pytest.mark.parametrize(
    ("body", "headers"),
    [
        ({"lastline": {"operation": "write", "idempotency_key": "k1"}}, {}),
        ({"metadata": {"lastline": {"operation": "write", "idempotency_key": "k1"}}}, {}),
        ({"metadata": {"lastline": json.dumps({"operation": "write", "idempotency_key": "k1"})}}, {}),
        ({}, {"x-lastline-operation": "write", "idempotency-key": "k1"}),
        # any source saying "write" wins over one saying "read"
        ({"lastline": {"operation": "read"}, "metadata": {"lastline": {"operation": "write"}}},
         {"idempotency-key": "k1"}),
        ({"lastline": {"operation": "read", "idempotency_key": "k1"}}, {"x-lastline-operation": "WRITE"}),
    ],
)
def test_a_write_marked_anywhere_is_a_write(body: dict[str, object], headers: dict[str, str]) -> None:
    options = lastline_options(_request(**body), headers)
    assert options.operation == "write"
    assert options.idempotency_key == "k1"


def test_plain_requests_are_reads_and_bad_options_are_invalid() -> None:
    assert lastline_options(_request(), {}).operation == "read"
    assert lastline_options(_request(), {"x-lastline-task": "faq"}).task == "faq"
    with pytest.raises(InvalidInput):
        lastline_options(_request(metadata={"lastline": "{not json"}), {})
    with pytest.raises(InvalidInput):
        lastline_options(_request(), {"x-lastline-operation": "delete"})


def test_the_core_install_imports_no_client_library() -> None:
    """LangChain, LiteLLM and openai are extras: the app, the client and the chat face never import them."""
    code = ("import sys, lastline.api, lastline.api.integrations.client, lastline.api.openai_compat.routes; "
            "print(sorted(m for m in ('langchain_core', 'litellm', 'openai') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"
