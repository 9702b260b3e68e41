"""Answer envelope → OpenAI response shapes: ``chat.completion``, SSE chunks, model objects.

Pure functions (no I/O), so the shapes are tested without a server. Token counts in ``usage``
are estimates (no tokenizer download on the fallback path): one token per CJK character plus one
per four other characters, rounded up — close enough for budgeting, not for billing.
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from lastline import Answer
from lastline.ids import random_hex_id

from .chat_context import MODEL_IDS, message_text

__all__ = [
    "answer_text",
    "completion_body",
    "envelope",
    "estimate_tokens",
    "model_object",
    "provenance_headers",
    "split_pieces",
    "sse_events",
    "usage",
]

#: Fixed creation time of lastline's models (2026-01-01): ``created`` must be stable across calls.
MODEL_CREATED = 1767225600
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
_WORD = re.compile(r"\s*\S+\s*|\s+")


def estimate_tokens(text: str) -> int:
    """Rough token count: CJK characters count one each, other characters one per four."""
    if not text:
        return 0
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)


def usage(messages: Sequence[Mapping[str, Any]], content: str) -> dict[str, int]:
    prompt = sum(estimate_tokens(message_text(m.get("content"))) for m in messages)
    completion = estimate_tokens(content)
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def envelope(answer: Answer) -> dict[str, Any]:
    """The ``lastline`` body field: the answer envelope without the answer text itself."""
    body: dict[str, Any] = answer.model_dump(mode="json", exclude={"answer"})
    return body


def answer_text(answer: Answer, *, notice_in_content: bool = False) -> str:
    """Message content: the answer, else extracted fields as JSON; optionally after the notice."""
    if answer.answer is not None:
        text = str(answer.answer)
    elif answer.fields is not None:
        text = json.dumps(answer.fields, ensure_ascii=False)
    else:
        text = ""
    if notice_in_content and answer.notice:
        return f"{answer.notice}\n\n{text}" if text else str(answer.notice)
    return text


def provenance_headers(answer: Answer) -> dict[str, str]:
    """ASCII-only headers (the notice, which may be Chinese, stays in the body)."""
    return {
        "x-lastline-source": answer.source.value,
        "x-lastline-confidence": answer.confidence.value,
        "x-lastline-degradation-depth": str(answer.degradation_depth),
        "x-lastline-stale": "true" if answer.stale else "false",
    }


def completion_id() -> str:
    return "chatcmpl-lastline-" + random_hex_id()


def completion_body(
    answer: Answer, content: str, *, model: str, n: int, token_usage: dict[str, int]
) -> dict[str, Any]:
    """A non-streaming ``chat.completion`` object with the ``lastline`` envelope."""
    return {
        "id": completion_id(),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": None,
        "choices": [
            {
                "index": i,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "logprobs": None,
                "finish_reason": "stop",
            }
            for i in range(n)
        ],
        "usage": token_usage,
        "lastline": envelope(answer),
    }


def split_pieces(text: str, size: int = 24) -> list[str]:
    """Cut ``text`` into stream pieces of about ``size`` characters at word ends (CJK: by length).

    Joining the pieces gives back ``text`` exactly.
    """
    pieces: list[str] = []
    current = ""
    for word in _WORD.findall(text):
        while len(word) > size:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(word[:size])
            word = word[size:]
        if current and len(current) + len(word) > size:
            pieces.append(current)
            current = ""
        current += word
    if current:
        pieces.append(current)
    return pieces


def sse_events(
    answer: Answer,
    content: str,
    *,
    model: str,
    n: int,
    token_usage: dict[str, int] | None,
) -> Iterator[str]:
    """The SSE stream: a role chunk (with the envelope), content chunks, a final chunk with
    ``finish_reason`` (envelope again), a usage chunk when asked for, then ``[DONE]``."""
    base = {"id": completion_id(), "object": "chat.completion.chunk", "created": int(time.time()),
            "model": model, "system_fingerprint": None}
    extra = {"usage": None} if token_usage is not None else {}

    def chunk(delta: dict[str, Any], finish: str | None = None, **more: Any) -> str:
        choices = [
            {"index": i, "delta": delta, "logprobs": None, "finish_reason": finish} for i in range(n)
        ]
        body = {**base, "choices": choices, **extra, **more}
        return "data: " + json.dumps(body, ensure_ascii=False) + "\n\n"

    meta = envelope(answer)
    yield chunk({"role": "assistant", "content": ""}, lastline=meta)
    for piece in split_pieces(content):
        yield chunk({"content": piece})
    yield chunk({}, "stop", lastline=meta)
    if token_usage is not None:
        yield "data: " + json.dumps({**base, "choices": [], "usage": token_usage}) + "\n\n"
    yield "data: [DONE]\n\n"


def model_object(model_id: str) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": MODEL_CREATED, "owned_by": "lastline"}


def model_list() -> dict[str, Any]:
    return {"object": "list", "data": [model_object(m) for m in MODEL_IDS]}
