"""Request bodies of the OpenAI-compatible face, and where lastline's own options ride along.

OpenAI clients send fields lastline ignores (``temperature``, ``top_p``, ``seed`` …): they are
accepted and dropped. lastline's options come, in increasing priority, from ``metadata.lastline``
(an object, or a JSON string since OpenAI metadata values are strings), a top-level ``lastline``
object (``extra_body={"lastline": {...}}`` in the openai SDK) and the ``x-lastline-operation`` /
``x-lastline-task`` / ``x-lastline-reason`` / ``Idempotency-Key`` headers. A request marked as a
write by any of them is a write: the safe side wins.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lastline import InvalidInput
from lastline.cache import Mode

from ..ladder.ladder import Label, ThresholdOverride

__all__ = [
    "ChatCompletionRequest",
    "ChatMessage",
    "ChatWritebackRequest",
    "LastlineOptions",
    "StreamOptions",
    "lastline_options",
]

MAX_MESSAGES = 2_000
MAX_TOOLS = 256


class ChatMessage(BaseModel):
    """One OpenAI chat message; content is a string or a list of parts (only text parts are read)."""

    model_config = ConfigDict(extra="allow")

    role: str = Field(max_length=32)
    content: str | list[Any] | None = None
    name: str | None = Field(None, max_length=256)
    tool_calls: list[dict[str, Any]] | None = Field(None, max_length=MAX_TOOLS)
    tool_call_id: str | None = Field(None, max_length=256)


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="allow")

    include_usage: bool = False


class LastlineOptions(BaseModel):
    """lastline's own per-request options (all optional)."""

    model_config = ConfigDict(extra="ignore")

    operation: Literal["read", "write"] = "read"
    idempotency_key: Label = None
    task: Label = None
    text: str | None = Field(None, description="Text for a rule pack to extract from (default: the prompt).")
    mode: Mode | None = None
    threshold: ThresholdOverride = None
    notice_in_content: bool = Field(False, description="Prefix the answer with the end-user notice.")
    reason: Label = Field(None, description="Why the caller fell back (for events).")


class ChatCompletionRequest(BaseModel):
    """``POST /v1/chat/completions`` body, as OpenAI defines it (sampling options are ignored)."""

    model_config = ConfigDict(extra="allow")

    model: str = Field("lastline", max_length=256)
    messages: list[ChatMessage] = Field(min_length=1, max_length=MAX_MESSAGES)
    stream: bool = False
    stream_options: StreamOptions | None = None
    n: int = Field(1, ge=1, le=8)
    tools: list[dict[str, Any]] | None = Field(None, max_length=MAX_TOOLS)
    functions: list[dict[str, Any]] | None = Field(None, max_length=MAX_TOOLS)
    response_format: dict[str, Any] | None = Field(
        None, description="Part of the cache key: a json_object request is never served a prose answer."
    )
    metadata: dict[str, Any] | None = None
    lastline: LastlineOptions | None = None


class ChatWritebackRequest(BaseModel):
    """``POST /v1/chat/completions/writeback``: an upstream model's good answer, stored for later.

    ``messages`` are the request sent upstream; the answer is ``content`` or, when absent, the first
    choice of ``completion`` (the upstream ``chat.completion`` object as received). ``model`` scopes
    the entry like a request's model does (omit it, or use ``lastline``, to serve any model).
    """

    model_config = ConfigDict(extra="forbid")

    messages: list[ChatMessage] = Field(min_length=1, max_length=MAX_MESSAGES)
    content: str | None = Field(None, max_length=200_000)
    completion: dict[str, Any] | None = None
    model: str | None = Field(None, max_length=256)
    tools: list[dict[str, Any]] | None = Field(None, max_length=MAX_TOOLS)
    response_format: dict[str, Any] | None = Field(None, description="The upstream request's response_format.")
    ttl_s: float | None = Field(None, gt=0)
    tags: list[str] = Field(default_factory=list, max_length=32)
    metadata: dict[str, Any] | None = None


def _metadata_options(metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    raw = (metadata or {}).get("lastline")
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError as exc:
            raise InvalidInput("metadata.lastline: not a JSON object") from exc
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise InvalidInput("metadata.lastline: not a JSON object")
    return dict(raw)


def lastline_options(body: ChatCompletionRequest, headers: Mapping[str, str]) -> LastlineOptions:
    """Merge metadata, body and header options; any source saying "write" makes it a write."""
    merged = _metadata_options(body.metadata)
    operations = {str(merged.get("operation", "read")).strip().lower()}
    if body.lastline is not None:
        merged.update(body.lastline.model_dump(exclude_unset=True))
        operations.add(body.lastline.operation)
    header_op = (headers.get("x-lastline-operation") or "").strip().lower()
    if header_op:
        merged["operation"] = header_op
        operations.add(header_op)
    for header, field in (("idempotency-key", "idempotency_key"), ("x-lastline-task", "task"),
                          ("x-lastline-reason", "reason")):
        if headers.get(header):
            merged[field] = headers[header]
    if "write" in operations:
        merged["operation"] = "write"
    try:
        return LastlineOptions.model_validate(merged)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InvalidInput(f"lastline.{where}: {first['msg']}") from exc
