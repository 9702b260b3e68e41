"""A LangChain ``BaseCache`` backed by a lastline server (install the ``langchain`` extra).

    from langchain_core.globals import set_llm_cache
    from lastline.api.integrations.langchain_cache import LastlineCache

    set_llm_cache(LastlineCache("http://127.0.0.1:8765"))

Every LangChain model call then looks lastline's cache up first (``intercept`` mode: the strict,
calibrated threshold), and every fresh model answer is written back. Unlike LangChain's own caches
a paraphrase can hit, the entries are shared by every process that talks to the server, and a hit
says how it matched: ``generation_info["lastline"]`` (and, for chat models,
``message.response_metadata["lastline"]``) carries layer, similarity, confidence, stale and age.

Keys: for a chat model LangChain passes the serialized message list as ``prompt``; it is parsed
back into messages and split by :func:`lastline.api.openai_compat.chat_context.chat_prompt` (prompt = the last
user message, context = fingerprint of the rest), with ``llm_string`` (model name and parameters)
in the context, so answers of one model configuration never serve another. A plain-LLM prompt is
the prompt itself, with ``llm_string`` as the context. Entries carry the tag ``langchain`` (or the
``tag`` given), which is what :meth:`LastlineCache.clear` invalidates.

A cache must not take the model down with it: when lastline cannot be reached (or answers 5xx), a
lookup is a miss and an update is skipped, each with one warning naming the error (no prompt
text). Pass ``strict=True`` to raise instead.

LangChain is imported lazily, when this module is imported: the core install does not need it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

import httpx
from langchain_core.caches import RETURN_VAL_TYPE, BaseCache
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, Generation

from lastline import LastlineError
from lastline.cache import LookupResult

from ..openai_compat.chat_context import ChatPrompt, chat_prompt
from .client import LastlineClient

__all__ = ["LastlineCache", "langchain_prompt"]

_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool", "function": "function",
          "developer": "developer"}
_NAMESPACE = "langchain:"
log = logging.getLogger("lastline.langchain")


def _as_message(item: Any) -> dict[str, Any] | None:
    """One LangChain-serialized message (``{"lc": 1, "kwargs": {...}}``) as an OpenAI-style dict."""
    if not isinstance(item, dict) or not isinstance(item.get("kwargs"), dict):
        return None
    kwargs = item["kwargs"]
    class_name = str((item.get("id") or [""])[-1])
    kind = kwargs.get("type") or class_name.removesuffix("Chunk").removesuffix("Message").lower()
    role = kwargs.get("role") if kind == "chat" else _ROLES.get(kind, kind)
    message: dict[str, Any] = {"role": role, "content": kwargs.get("content")}
    calls = kwargs.get("tool_calls") or []
    if calls:
        message["tool_calls"] = [
            {"function": {"name": c.get("name"), "arguments": json.dumps(c.get("args"), sort_keys=True)}}
            for c in calls if isinstance(c, dict)
        ]
    for key in ("name", "tool_call_id"):
        if kwargs.get(key):
            message[key] = kwargs[key]
    return message


def langchain_prompt(prompt: str, llm_string: str) -> ChatPrompt:
    """LangChain's ``(prompt, llm_string)`` → lastline's (prompt, context)."""
    namespace = _NAMESPACE + llm_string
    try:
        items = json.loads(prompt)
    except ValueError:
        items = None
    if isinstance(items, list) and items:
        messages = [_as_message(item) for item in items]
        if all(m is not None for m in messages):
            return chat_prompt([m for m in messages if m is not None], namespace=namespace)
    return chat_prompt([{"role": "user", "content": prompt}], namespace=namespace)


def _is_chat(prompt: str) -> bool:
    return prompt.startswith("[") and '"lc"' in prompt


class LastlineCache(BaseCache):
    """LangChain's LLM cache, kept by a lastline server (shared, semantic, with provenance)."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        client: LastlineClient | None = None,
        mode: str = "intercept",
        threshold: float | None = None,
        ttl_s: float | None = None,
        tag: str = "langchain",
        strict: bool = False,
    ) -> None:
        self.client = LastlineClient.given(client, base_url, api_key)
        self.mode = mode
        self.threshold = threshold
        self.ttl_s = ttl_s
        self.tag = tag
        self.strict = strict

    def _unavailable(self, exc: httpx.TransportError | LastlineError, what: str) -> None:
        """lastline unreachable or failing (5xx): warn and go on, unless strict. Refusals (4xx) raise."""
        if self.strict or (isinstance(exc, LastlineError) and exc.status < 500):
            raise exc
        log.warning("lastline cache %s skipped: %s", what, getattr(exc, "code", type(exc).__name__))

    def lookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        """Cached generations for this prompt and model configuration, or ``None`` on a miss."""
        key = langchain_prompt(prompt, llm_string)
        try:
            found = self.client.cache_lookup(key.prompt, context=key.context, mode=self.mode, threshold=self.threshold)
        except (httpx.TransportError, LastlineError) as exc:
            self._unavailable(exc, "lookup")
            return None
        return _generations(prompt, found)

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        """Write a fresh model answer back (the first generation's text; empty answers are skipped)."""
        text = _first_text(return_val)
        if not text.strip():
            return
        key = langchain_prompt(prompt, llm_string)
        try:
            self.client.cache_put(key.prompt, text, context=key.context, ttl_s=self.ttl_s, tags=(self.tag,),
                                  metadata={"via": "langchain"})
        except (httpx.TransportError, LastlineError) as exc:
            self._unavailable(exc, "update")

    def clear(self, **kwargs: Any) -> None:
        """Invalidate every entry this adapter wrote (by its tag), for this tenant."""
        self.client.cache_invalidate(tags=[self.tag])

    def close(self) -> None:
        """Close the HTTP connections (after ``set_llm_cache(None)``)."""
        self.client.close()


def _generations(prompt: str, found: LookupResult) -> RETURN_VAL_TYPE | None:
    """A hit as LangChain generations carrying ``lastline`` provenance; ``None`` on a miss."""
    if not found.hit or found.answer is None:
        return None
    provenance = {k: v for k, v in found.to_dict().items() if k not in ("answer", "hit")}
    info = {"lastline": {"source": "cache", **provenance}}
    if _is_chat(prompt):
        message = AIMessage(content=found.answer, response_metadata=dict(info))
        return [ChatGeneration(message=message, generation_info=info)]
    return [Generation(text=found.answer, generation_info=info)]


def _first_text(return_val: Sequence[Generation]) -> str:
    if not return_val:
        return ""
    generation = return_val[0]
    if isinstance(generation, ChatGeneration):
        content = generation.message.content
        return content if isinstance(content, str) else generation.text
    return generation.text
