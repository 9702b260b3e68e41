"""A small typed Python client for the lastline HTTP API (sync, on httpx).

    from lastline.api.integrations.client import LastlineClient

    with LastlineClient("http://127.0.0.1:8765", api_key=None) as ll:
        ll.cache_put("What is the refund window?", "30 days from delivery.")
        answer = ll.fallback("how long do I have to get a refund?")
        print(answer.answer, answer.source, answer.confidence)

Errors come back as the same :mod:`lastline.errors` classes the server raised, chosen by the
response's ``error`` code (``NoFallbackAnswer``, ``NoDegradedWrites`` with ``extra["idempotency_key"]``,
``Unauthorized`` …); both error shapes (``{error, detail}`` and OpenAI's ``{error: {code, message}}``)
are understood. Network failures stay ``httpx`` exceptions: lastline being down is not a lastline
answer. There is no async twin: in async code call it through ``asyncio.to_thread`` (one
implementation, house rule 7).

Results are the tiers' own value classes, parsed by pydantic from the JSON the server wrote with
the same classes: :class:`~lastline.cache.LookupResult` (``CacheLookup``),
:class:`~lastline.kb.SearchResult`, :class:`~lastline.rules.Entity` and
:class:`~lastline.rules.ExtractResult` (``Extraction``). Fields a newer server adds are ignored.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import httpx
from pydantic import TypeAdapter

from lastline import Answer, LastlineError, errors
from lastline.cache import LookupResult
from lastline.kb import DEFAULT_K, Mode, SearchResult
from lastline.rules import Entity, ExtractResult

__all__ = ["CacheLookup", "Entity", "Extraction", "LastlineClient", "SearchResult", "raise_for_error"]

DEFAULT_BASE_URL = "http://127.0.0.1:8765"
DEFAULT_TIMEOUT_S = 10.0


#: The client's names for the tiers' result classes (kept for callers that imported them from here).
CacheLookup = LookupResult
Extraction = ExtractResult

# Parsers of the server's JSON into the tiers' classes (validated; fields a newer server adds are dropped).
_LOOKUP = TypeAdapter(LookupResult)
_HITS = TypeAdapter(list[SearchResult])
_ENTITIES = TypeAdapter(list[Entity])
_EXTRACTION = TypeAdapter(ExtractResult)


def _error_classes() -> dict[str, type[LastlineError]]:
    found: dict[str, type[LastlineError]] = {}
    pending: list[type[LastlineError]] = [LastlineError]
    while pending:
        cls = pending.pop()
        found.setdefault(cls.code, cls)
        pending.extend(cls.__subclasses__())
    return found


_BY_STATUS = {401: errors.Unauthorized, 404: errors.NotFound, 409: errors.Conflict,
              413: errors.PayloadTooLarge, 422: errors.InvalidInput, 400: errors.InvalidInput,
              503: errors.StorageError}


def raise_for_error(response: httpx.Response) -> None:
    """Raise the lastline error a non-2xx response stands for (by code, else by status)."""
    if response.is_success:
        return
    try:
        body = response.json()
    except ValueError:
        body = {}
    err = body.get("error") if isinstance(body, dict) else None
    extra: dict[str, Any] = {}
    if isinstance(err, dict):  # OpenAI shape
        code, detail = str(err.get("code") or ""), str(err.get("message") or "")
        extra = {k: v for k, v in err.items() if k not in ("code", "message", "type", "param")}
    else:
        code, detail = str(err or ""), str(body.get("detail", "") if isinstance(body, dict) else "")
        if isinstance(body, dict):
            extra = {k: v for k, v in body.items() if k not in ("error", "detail")}
    cls = _error_classes().get(code) or _BY_STATUS.get(response.status_code, LastlineError)
    raise cls(detail or f"HTTP {response.status_code}", **extra)


def _drop_none(data: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if v is not None}


class LastlineClient:
    """Thin sync client: one method per call of the HTTP contract, typed results."""

    def __init__(
        self,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT_S,
        http: httpx.Client | None = None,
    ) -> None:
        headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = http or httpx.Client(base_url=base_url.rstrip("/"), headers=headers, timeout=timeout)

    @classmethod
    def given(cls, client: LastlineClient | None, base_url: str | None, api_key: str | None) -> LastlineClient:
        """``client`` itself, or a new one for ``base_url`` (default: the local service) — for adapters."""
        if client is not None:
            return client
        return cls(base_url, api_key) if base_url else cls(api_key=api_key)

    def __enter__(self) -> LastlineClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def request(self, method: str, path: str, json: Any = None, **kwargs: Any) -> Any:
        """One call: JSON in, JSON out (``None`` for 204); lastline errors raised as such."""
        response = self._http.request(method, path, json=json, **kwargs)
        raise_for_error(response)
        return None if response.status_code == 204 or not response.content else response.json()

    # -- the ladder ---------------------------------------------------------------------------
    def fallback(
        self,
        prompt: str,
        *,
        context: str | None = None,
        task: str | None = None,
        text: str | None = None,
        operation: str = "read",
        idempotency_key: str | None = None,
        **extra: Any,
    ) -> Answer:
        """``POST /v1/fallback``: the degraded answer with provenance (raises NoFallbackAnswer /
        NoDegradedWrites)."""
        body = _drop_none({"prompt": prompt, "context": context, "task": task, "text": text,
                           "operation": operation, "idempotency_key": idempotency_key, **extra})
        return Answer.model_validate(self.request("POST", "/v1/fallback", body))

    # -- cache --------------------------------------------------------------------------------
    def cache_put(
        self,
        prompt: str,
        response: str,
        *,
        context: str | None = None,
        ttl_s: float | None = None,
        tags: Sequence[str] = (),
        metadata: Mapping[str, Any] | None = None,
    ) -> str:
        """``POST /v1/cache/entries`` → the new entry id."""
        body = _drop_none({"prompt": prompt, "response": response, "context": context, "ttl_s": ttl_s,
                           "tags": list(tags) or None, "metadata": dict(metadata) if metadata else None})
        return str(self.request("POST", "/v1/cache/entries", body)["id"])

    def cache_lookup(
        self, prompt: str, *, context: str | None = None, mode: str = "intercept", threshold: float | None = None
    ) -> LookupResult:
        body = _drop_none({"prompt": prompt, "context": context, "mode": mode, "threshold": threshold})
        return _LOOKUP.validate_python(self.request("POST", "/v1/cache/lookup", body))

    def cache_delete(self, entry_id: str) -> Any:
        return self.request("DELETE", f"/v1/cache/entries/{entry_id}")

    def cache_invalidate(
        self, *, tags: Sequence[str] | None = None, older_than_s: float | None = None, context: str | None = None
    ) -> dict[str, Any]:
        """``POST /v1/cache/invalidate`` → the server's counts."""
        body = _drop_none({"tags": list(tags) if tags else None, "older_than_s": older_than_s, "context": context})
        result: dict[str, Any] = self.request("POST", "/v1/cache/invalidate", body)
        return result

    def cache_feedback(self, *, correct: bool, entry_id: str | None = None, lookup_id: str | None = None) -> None:
        self.request("POST", "/v1/cache/feedback",
                     _drop_none({"correct": correct, "entry_id": entry_id, "lookup_id": lookup_id}))

    def cache_stats(self) -> dict[str, Any]:
        result: dict[str, Any] = self.request("GET", "/v1/cache/stats")
        return result

    def chat_writeback(
        self,
        messages: Sequence[Mapping[str, Any]],
        *,
        content: str | None = None,
        completion: Mapping[str, Any] | None = None,
        model: str | None = None,
        tools: Sequence[Mapping[str, Any]] | None = None,
        ttl_s: float | None = None,
        tags: Sequence[str] = (),
        response_format: Mapping[str, Any] | None = None,
    ) -> str:
        """``POST /v1/chat/completions/writeback``: store an upstream model's answer → entry id."""
        body = _drop_none({"messages": list(messages), "content": content,
                           "completion": dict(completion) if completion else None, "model": model,
                           "tools": list(tools) if tools else None, "ttl_s": ttl_s, "tags": list(tags),
                           "response_format": dict(response_format) if response_format else None})
        return str(self.request("POST", "/v1/chat/completions/writeback", body)["id"])

    # -- knowledge base and rules -------------------------------------------------------------
    def kb_add_document(
        self, *, title: str, text: str, source: str, metadata: Mapping[str, Any] | None = None,
        doc_id: str | None = None,
    ) -> dict[str, Any]:
        body = _drop_none({"id": doc_id, "title": title, "text": text, "source": source,
                           "metadata": dict(metadata) if metadata else None})
        result: dict[str, Any] = self.request("POST", "/v1/kb/documents", body)
        return result

    def kb_search(
        self, query: str, *, k: int = DEFAULT_K, filters: Mapping[str, Any] | None = None, mode: Mode | None = None
    ) -> list[SearchResult]:
        body = _drop_none({"query": query, "k": k, "filters": dict(filters) if filters else None, "mode": mode})
        return _HITS.validate_python(self.request("POST", "/v1/kb/search", body)["results"])

    def rules_extract(self, text: str, *, pack: str, fields: Sequence[str] | None = None) -> ExtractResult:
        body = _drop_none({"text": text, "pack": pack, "fields": list(fields) if fields else None})
        return _EXTRACTION.validate_python(self.request("POST", "/v1/rules/extract", body))

    def rules_entities(
        self, text: str, *, reference_time: str | None = None, types: Sequence[str] | None = None
    ) -> list[Entity]:
        body = _drop_none({"text": text, "reference_time": reference_time, "types": list(types) if types else None})
        return _ENTITIES.validate_python(self.request("POST", "/v1/rules/entities", body)["entities"])
