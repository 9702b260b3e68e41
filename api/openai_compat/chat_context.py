"""Chat messages → (prompt, context fingerprint): the one place a conversation becomes a cache key.

The OpenAI-compatible endpoint, its write-back and the LangChain cache adapter all call
:func:`chat_prompt`, so an answer written back by one of them is found by the others.

- ``prompt`` is the text of the **last user message** (text parts joined by newlines).
- ``context`` is ``None`` when nothing else shapes the answer (one user message, no system prompt,
  no tools, no response format, no model scope): such a question shares the plain cache with
  ``POST /v1/fallback`` and ``POST /v1/cache/entries``. Otherwise it is ``"chat:" + sha256(...)[:32]``
  over the canonical JSON of everything else that the tenant's :class:`~lastline.settings.ChatScope`
  keeps: system messages (by default with dates, times, UUIDs and request ids masked, see
  :mod:`.volatile`), the other turns in order (the prompt's slot marked), the tool set (sorted by
  name) and the ``response_format`` (always), the model scope and an optional namespace (LangChain's
  ``llm_string``). Inside message text, runs of whitespace are collapsed; the context must then match
  exactly (the cache's fuzzy and semantic matching apply to the prompt only).

Model scope: lastline's own model ids (:data:`MODEL_IDS`) add nothing, so a question answered by
any upstream model can be served; ``lastline/<name>`` scopes to upstream model ``<name>``; any
other model name scopes to itself.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lastline import InvalidInput
from lastline.settings import ChatScope

from .volatile import mask_volatile

__all__ = ["MODEL_IDS", "ChatPrompt", "chat_prompt", "message_text", "model_scope"]

#: Model ids served by ``GET /v1/models``; all of them mean "the whole fallback ladder".
MODEL_IDS = ("lastline", "lastline-fallback")
_SCOPE_PREFIX = "lastline/"
CONTEXT_PREFIX = "chat:"


@dataclass(frozen=True)
class ChatPrompt:
    """What the cache and the ladder see of a conversation."""

    prompt: str
    context: str | None


def model_scope(model: str | None) -> str | None:
    """The upstream model a request is scoped to, or ``None`` for "any model"."""
    if not model or model in MODEL_IDS:
        return None
    if model.startswith(_SCOPE_PREFIX):
        return model[len(_SCOPE_PREFIX):] or None
    return model


def message_text(content: Any) -> str:
    """Text of an OpenAI message ``content``: a string, or the text parts of a list joined by newlines."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, Mapping) and part.get("type") in ("text", "input_text"):
                texts.append(str(part.get("text", "")))
        return "\n".join(texts)
    return str(content)


def _squash(text: str) -> str:
    return " ".join(text.split())


def _canonical_content(content: Any) -> Any:
    """Whitespace-collapsed text; non-text parts (images, audio) kept as canonical JSON."""
    if content is None or isinstance(content, str):
        return _squash(content or "")
    if isinstance(content, Sequence) and all(
        isinstance(p, str) or (isinstance(p, Mapping) and p.get("type") in ("text", "input_text"))
        for p in content
    ):
        return _squash(message_text(content))
    return json.loads(json.dumps(content, sort_keys=True, default=str))


_SYSTEM_ROLES = ("system", "developer")


def _canonical_message(message: Mapping[str, Any], scope: ChatScope) -> dict[str, Any]:
    content = _canonical_content(message.get("content"))
    if message.get("role") in _SYSTEM_ROLES and scope.system == "normalized" and isinstance(content, str):
        content = mask_volatile(content)
    out: dict[str, Any] = {"role": str(message.get("role", "")), "content": content}
    if message.get("name"):
        out["name"] = str(message["name"])
    calls = message.get("tool_calls") or []
    if calls:
        out["tool_calls"] = [_canonical_call(c) for c in calls if isinstance(c, Mapping)]
    if message.get("function_call"):
        out["function_call"] = message["function_call"]
    if message.get("tool_call_id"):
        out["tool_call_id"] = str(message["tool_call_id"])
    return out


def _function(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """The ``function`` object of a tool or tool call (or the item itself, legacy ``functions``)."""
    fn = item.get("function", item)
    return fn if isinstance(fn, Mapping) else {}


def _canonical_call(call: Mapping[str, Any]) -> dict[str, Any]:
    fn = _function(call)
    return {"name": fn.get("name"), "arguments": fn.get("arguments")}


def _canonical_tools(tools: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    """Tool set by name and parameters, sorted by name (descriptions and flags don't change a tool)."""
    out = []
    for tool in tools or ():
        fn = _function(tool) if isinstance(tool, Mapping) else {}
        out.append({"name": fn.get("name"), "parameters": fn.get("parameters")})
    return sorted(out, key=lambda t: str(t["name"]))


def chat_prompt(
    messages: Sequence[Mapping[str, Any]],
    *,
    model: str | None = None,
    tools: Sequence[Mapping[str, Any]] | None = None,
    response_format: Mapping[str, Any] | None = None,
    namespace: str | None = None,
    scope: ChatScope | None = None,
) -> ChatPrompt:
    """Split a conversation into the last user message and a fingerprint of everything else.

    ``scope`` is the tenant's policy (default: system prompt normalized, prior turns and model kept).
    Raises :class:`InvalidInput` when there is no user message with text to answer.
    """
    scope = scope or ChatScope()
    index = next(
        (i for i in range(len(messages) - 1, -1, -1) if messages[i].get("role") == "user"), None
    )
    if index is None:
        raise InvalidInput("messages: no user message to answer")
    prompt = message_text(messages[index].get("content")).strip()
    if not prompt:
        raise InvalidInput("messages: the last user message has no text")
    def kept(m: Mapping[str, Any]) -> bool:
        if m.get("role") in _SYSTEM_ROLES:
            return scope.system != "ignore"
        return scope.history

    rest = [_canonical_message(m, scope) for m in messages[:index] if kept(m)]
    rest.append({"prompt": True})
    rest.extend(_canonical_message(m, scope) for m in messages[index + 1:] if kept(m))
    fmt = dict(response_format or {})
    parts: dict[str, Any] = {
        "messages": rest if len(rest) > 1 else [],
        "tools": _canonical_tools(tools),
        # Plain text is what a request without response_format gets: the same key.
        "response_format": fmt if fmt and fmt != {"type": "text"} else None,
        "model": model_scope(model) if scope.model else None,
        "namespace": namespace,
    }
    if not any(parts.values()):
        return ChatPrompt(prompt=prompt, context=None)
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    digest = hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]
    return ChatPrompt(prompt=prompt, context=CONTEXT_PREFIX + digest)
