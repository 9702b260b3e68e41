"""The OpenAI-compatible face: lastline as the last model of any OpenAI-speaking fallback chain.

- ``POST /v1/chat/completions`` answers the last user message through the fallback ladder (context:
  :func:`lastline.api.openai_compat.chat_context.chat_prompt`), as a ``chat.completion`` or an SSE stream, with
  provenance in ``x-lastline-*`` headers and a ``lastline`` body field (every stream chunk that
  carries it: the first and the final one).
- ``GET /v1/models`` (and ``/v1/models/{id}``) lists lastline's model ids.
- ``POST /v1/chat/completions/writeback`` stores an upstream model's good answer under the same
  (prompt, context) key that a later chat completion will look up.

Writes (``x-lastline-operation: write`` + ``Idempotency-Key``, or ``{"lastline": {"operation":
"write", "idempotency_key": …}}`` in the body or ``metadata``) are refused with 409
``no_degraded_writes`` and the key echoed. When no tier can answer: 422 ``no_fallback_answer``.
Errors come in OpenAI's shape; ``openai_compat.errors`` says why each status was chosen.
"""

from __future__ import annotations

from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse, Response
from pydantic import ValidationError

from lastline import Answer, InvalidInput, NoDegradedWrites
from lastline.admission import Deadline

from ..http.deps import RuntimeDep, TenantDep, deadline_of
from ..http.direct_route import direct_post
from ..http.prefixed_router import PrefixedRouter
from ..http.threads import in_thread
from ..ladder.ladder import FallbackRequest, first_answer, run_ladder
from ..ladder.runtime import Runtime
from .chat_context import MODEL_IDS, chat_prompt, model_scope
from .errors import OpenAIDirectRoute, OpenAIRoute, openai_error
from .format import (
    answer_text,
    completion_body,
    model_list,
    model_object,
    provenance_headers,
    sse_events,
    usage,
)
from .models import ChatCompletionRequest, ChatWritebackRequest, LastlineOptions, lastline_options

__all__ = ["router"]

router = PrefixedRouter(prefix="/v1", tags=["openai"], route_class=OpenAIRoute)


_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"description": "Invalid request (OpenAI error shape)"},
    401: {"description": "Missing or unknown API key"},
    422: {"description": "`no_fallback_answer`: no tier could answer (422, not 404: LiteLLM cools down 404s)"},
    409: {"description": "`no_degraded_writes`: a write is never answered in degraded mode"},
}


def _is_served(model_id: str) -> bool:
    return model_id in MODEL_IDS or (model_id.startswith("lastline/") and model_scope(model_id) is not None)


def _refuse_write(options: LastlineOptions) -> NoDegradedWrites:
    return NoDegradedWrites(
        "writes are never served in degraded mode; retry against the primary when it is back",
        idempotency_key=options.idempotency_key,
    )


#: The largest request body whose conversation is turned into a cache key on the event loop (see
#: :func:`chat_completions`): canonicalizing costs ≈0.1–0.15 µs per character of message text, so
#: ≈2 ms here — about what a thread would hold the interpreter lock for doing the same work.
LOOP_BODY_MAX_BYTES = 16_384
_ROUTE = "chat_completions"


@direct_post(router, "/chat/completions", route_class=OpenAIDirectRoute,
             summary="Chat completion from the fallback ladder", responses=_ERRORS)
async def chat_completions(
    body: ChatCompletionRequest,
    request: Request,
    runtime: RuntimeDep,
    tenant: TenantDep,
) -> Response:
    """OpenAI ``chat.completion`` (or an SSE stream with ``stream: true``) whose content is lastline's
    degraded answer; ``lastline`` field and ``x-lastline-source`` / ``x-lastline-confidence`` headers
    carry its provenance. Sampling options are accepted and ignored; ``usage`` is an estimate."""
    options = lastline_options(body, request.headers)
    # The SDKs send their read timeout on every request: the ladder's rungs fit in it.
    deadline = deadline_of(request.headers, runtime.settings.request_deadline_s)
    messages = [m.model_dump(exclude_none=True) for m in body.messages]
    size = request.headers.get("content-length", "")
    if not size.isdigit() or int(size) > LOOP_BODY_MAX_BYTES:  # the whole way on a thread, as a long one needs
        return await in_thread(_complete, runtime, tenant, body, options, messages, deadline)
    # On the loop: the conversation's cache key, then what the ladder answers without a thread (a
    # refused write, a fresh exact hit); the rest of the ladder on a thread.
    req = _ladder_request(runtime, tenant, body, options, messages)
    answer = first_answer(runtime, tenant, req, route=_ROUTE)
    if answer is None:
        answer = await in_thread(run_ladder, runtime, tenant, req, route=_ROUTE, deadline=deadline)
    return _completion(body, options, messages, _checked(answer, options))


def _complete(runtime: Runtime, tenant: str, body: ChatCompletionRequest, options: LastlineOptions,
              messages: list[dict[str, Any]], deadline: Deadline) -> Response:
    """The whole completion, for a thread."""
    req = _ladder_request(runtime, tenant, body, options, messages)
    answer = run_ladder(runtime, tenant, req, route=_ROUTE, deadline=deadline)
    return _completion(body, options, messages, _checked(answer, options))


def _completion(body: ChatCompletionRequest, options: LastlineOptions, messages: list[dict[str, Any]],
                answer: Answer) -> Response:
    content = answer_text(answer, notice_in_content=options.notice_in_content)
    headers = provenance_headers(answer)
    if body.stream:
        include_usage = bool(body.stream_options and body.stream_options.include_usage)
        events = sse_events(
            answer, content, model=body.model, n=body.n,
            token_usage=usage(messages, content) if include_usage else None,
        )
        stream_headers = {**headers, "cache-control": "no-cache", "x-accel-buffering": "no"}
        # The events in one body: the answer is whole before the first event, so sending them apart gains
        # a client nothing, and Starlette's StreamingResponse costs a task group per response (and, for
        # a sync iterator, a thread hop per event), the request's door slot held meanwhile. A client's
        # SSE parser reads the same events either way.
        return Response("".join(events), media_type="text/event-stream", headers=stream_headers)
    payload = completion_body(answer, content, model=body.model, n=body.n, token_usage=usage(messages, content))
    return JSONResponse(payload, headers=headers)


def _ladder_request(runtime: Runtime, tenant: str, body: ChatCompletionRequest, options: LastlineOptions,
                    messages: list[dict[str, Any]]) -> FallbackRequest:
    """The ladder's request for this conversation: its last user message and the fingerprint of the rest."""
    try:
        chat = chat_prompt(messages, model=body.model, tools=body.tools or body.functions,
                           response_format=body.response_format, scope=runtime.settings.chat_scope_for(tenant))
    except InvalidInput:
        if options.operation == "write":
            raise _refuse_write(options) from None
        raise
    try:
        return FallbackRequest(
            prompt=chat.prompt,
            context=chat.context,
            task=options.task,
            text=options.text,
            operation=options.operation,
            idempotency_key=options.idempotency_key,
            mode=options.mode or "fallback",
            threshold=options.threshold,
            reason=options.reason,
            exact_only=False,  # tool-result lookups go through /v1/fallback, not the chat face
        )
    except ValidationError as exc:  # e.g. a prompt past the hard ceiling: the caller's fault, not a 500
        if options.operation == "write":
            raise _refuse_write(options) from None
        first = exc.errors()[0]
        raise InvalidInput(f"{'.'.join(str(p) for p in first['loc'])}: {first['msg']}") from None


def _checked(answer: Answer, options: LastlineOptions) -> Answer:
    if options.operation == "write":  # the ladder refuses writes; never let one through regardless
        raise _refuse_write(options)
    return answer


def _upstream_content(completion: dict[str, Any]) -> str:
    """The first choice's text of an upstream ``chat.completion``; refuses what must not be cached."""
    if "lastline" in completion:
        raise InvalidInput("completion: this answer came from lastline itself; only upstream answers are stored")
    choices = completion.get("choices") or []
    if not choices or not isinstance(choices[0], dict):
        raise InvalidInput("completion.choices: no choice to store")
    choice = choices[0]
    if choice.get("finish_reason") not in (None, "stop"):
        reason = choice.get("finish_reason")
        raise InvalidInput(f"completion.choices[0].finish_reason: {reason!r} is not a complete answer")
    message = choice.get("message")
    if not isinstance(message, dict):
        raise InvalidInput("completion.choices[0].message: not a message object")
    if message.get("tool_calls") or message.get("function_call"):
        raise InvalidInput("completion.choices[0].message: tool calls are not stored as answers")
    content = message.get("content")
    if not isinstance(content, str) or not content.strip():
        raise InvalidInput("completion.choices[0].message.content: no text to store")
    return content


@router.get("/models", summary="List lastline's model ids (OpenAI shape)")
def list_models(tenant: TenantDep) -> dict[str, Any]:
    """``lastline`` and its aliases all mean "answer through the whole fallback ladder"."""
    return model_list()


@router.get("/models/{model_id:path}", summary="One model (OpenAI shape)", responses={404: {}})
def get_model(model_id: str, tenant: TenantDep) -> Response:
    """A listed id, or ``lastline/<upstream model>`` (the ladder, scoped to that model's answers)."""
    if not _is_served(model_id):
        return openai_error(404, f"The model '{model_id}' does not exist", "model_not_found", param="model")
    return JSONResponse(model_object(model_id))


@router.post(
    "/chat/completions/writeback", status_code=201, summary="Store an upstream chat answer",
    responses={400: _ERRORS[400], 401: _ERRORS[401]},
)
def chat_writeback(
    body: ChatWritebackRequest,
    runtime: RuntimeDep,
    tenant: TenantDep,
) -> dict[str, Any]:
    """Cache a good upstream answer under prompt = last user message, context = the fingerprint of
    the rest, so a later chat completion with the same conversation finds it. Returns ``{id, context}``."""
    if body.content is not None:
        content = body.content
    elif body.completion is not None:
        content = _upstream_content(body.completion)
    else:
        raise InvalidInput("content or completion: one of them is required")
    if not content.strip():
        raise InvalidInput("content: no text to store")
    messages = [m.model_dump(exclude_none=True) for m in body.messages]
    chat = chat_prompt(messages, model=body.model, tools=body.tools, response_format=body.response_format,
                       scope=runtime.settings.chat_scope_for(tenant))
    metadata = {**(body.metadata or {}), "via": "chat_writeback"}
    if body.completion and isinstance(body.completion.get("model"), str):
        metadata["upstream_model"] = body.completion["model"]
    entry_id = runtime.cache.put(
        chat.prompt, content, tenant=tenant, context=chat.context,
        ttl_s=body.ttl_s, tags=tuple(body.tags), metadata=metadata,
    )
    return {"id": entry_id, "context": chat.context}
