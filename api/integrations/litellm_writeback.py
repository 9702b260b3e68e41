"""A LiteLLM callback that writes every good upstream chat answer back to lastline.

    import litellm
    from lastline.api.integrations.litellm_writeback import LastlineWriteback

    litellm.callbacks = [LastlineWriteback("http://127.0.0.1:8765")]

After each successful chat completion LiteLLM reports (direct calls or through a Router), the
request's messages and the completion go to ``POST /v1/chat/completions/writeback``: the same
(prompt, context) key a later fallback to ``openai/lastline`` looks up. So the cache fills itself
while the providers work, and answers when they don't.

Not written back: lastline's own answers (they carry the ``lastline`` field; the server refuses
them too), incomplete answers (``finish_reason`` other than ``stop``) and tool calls. A write-back
that fails (lastline down, refused) never fails the caller's LLM call: it is logged as a warning
with the error code, never with the prompt or answer text.

LiteLLM is imported when this module is: install it yourself (it is not a lastline dependency).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import httpx
from litellm.integrations.custom_logger import CustomLogger

from lastline import LastlineError

from .client import LastlineClient

__all__ = ["LastlineWriteback"]

log = logging.getLogger("lastline.writeback")


class LastlineWriteback(CustomLogger):
    """LiteLLM success callback → lastline chat write-back (sync and async calls alike)."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        client: LastlineClient | None = None,
        ttl_s: float | None = None,
        tags: tuple[str, ...] = ("litellm",),
    ) -> None:
        super().__init__()
        self.client = LastlineClient.given(client, base_url, api_key)
        self.ttl_s = ttl_s
        self.tags = tags
        self.written = 0

    def log_success_event(self, kwargs: dict[str, Any], response_obj: Any, start_time: Any, end_time: Any) -> None:
        self.write_back(kwargs, response_obj)

    async def async_log_success_event(
        self, kwargs: dict[str, Any], response_obj: Any, start_time: Any, end_time: Any
    ) -> None:
        await asyncio.to_thread(self.write_back, kwargs, response_obj)

    def write_back(self, kwargs: dict[str, Any], response_obj: Any) -> str | None:
        """Store one completion; ``None`` when it is not a storable upstream answer or storing failed."""
        completion = _as_dict(response_obj)
        messages = kwargs.get("messages")
        if not completion or not messages or completion.get("object") not in ("chat.completion", None):
            return None
        if "lastline" in completion or getattr(response_obj, "lastline", None) is not None:
            return None  # lastline's own (degraded) answer: never stored as fresh
        choice = (completion.get("choices") or [{}])[0]
        if choice.get("finish_reason") not in ("stop", None) or not (choice.get("message") or {}).get("content"):
            return None
        params = kwargs.get("optional_params") or {}
        fmt = params.get("response_format")
        plain = [m if isinstance(m, dict) else _as_dict(m) for m in messages]
        try:
            entry_id = self.client.chat_writeback(
                plain, completion=completion, tools=params.get("tools"), ttl_s=self.ttl_s, tags=self.tags,
                response_format=fmt if isinstance(fmt, dict) else None,
            )
        except (LastlineError, httpx.HTTPError) as exc:
            log.warning("lastline write-back failed: %s", getattr(exc, "code", type(exc).__name__))
            return None
        self.written += 1
        return entry_id

    def close(self) -> None:
        self.client.close()


def _as_dict(response_obj: Any) -> dict[str, Any]:
    if isinstance(response_obj, dict):
        return response_obj
    dump = getattr(response_obj, "model_dump", None)
    if callable(dump):
        try:
            data = dump(mode="json")
        except Exception:  # a partial stream object LiteLLM could not serialise: nothing to store
            return {}
        return data if isinstance(data, dict) else {}
    return {}
