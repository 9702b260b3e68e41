"""``/v1/cache/*``: the semantic cache over HTTP (entries, lookup, invalidation, feedback, stats, calibration).

Thin on purpose: every check and decision lives in :class:`lastline.cache.SemanticCache`; this
module maps JSON to its calls, the tenant from the API key, and its errors to ``{error, detail}``.
The cache call runs off the event loop, so one slow encode never blocks it: FastAPI's pool for sync
endpoints, and for the lookup, the hot path, the cache's lookup rounds (one thread whose rounds share
a model call: ``cache/_rounds.py``), or the loop's executor when the store's reads leave the process
(``http/threads.py``). The lookup looks at its exact key on the loop first (one indexed read of the
embedded file): exact hits, and refusals for want of a ``semantic`` slot, never wait for a thread.
A lookup whose client leaves before its round starts is dropped there (``http/protocol.py``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from fastapi import Path, Query, Request, status
from fastapi.responses import Response
from pydantic import BaseModel, Field, TypeAdapter

from lastline import InvalidInput, NotFound, Overloaded
from lastline.cache import Language, LookupResult, Mode

from ...ladder.ladder import Context, ThresholdOverride
from ...ladder.text_limits import check_text_lengths
from ..deps import RuntimeDep, StrictBody, TenantDep, deadline_of
from ..direct_route import direct_post
from ..prefixed_router import PrefixedRouter
from ..protocol import CLIENT_CLOSED_REQUEST, client_left, when_client_leaves
from ..threads import in_thread, settled

__all__ = ["router"]

router = PrefixedRouter(prefix="/v1/cache", tags=["cache"])

T = TypeVar("T")


_ERRORS: dict[int | str, dict[str, str]] = {
    401: {"description": "Missing or unknown API key."},
    413: {"description": "Prompt or body too large."},
    422: {"description": "invalid_input: a field is wrong (empty prompt, bad TTL, threshold outside [0, 1])."},
}


#: The lookup's answer rendered to JSON here, not by FastAPI: from a sync endpoint FastAPI validates
#: the returned value against ``response_model`` again in a second thread-pool hop before it
#: serializes it — a wake-up, a GIL hand-over and a validation of an object this module just built.
#: The same adapter FastAPI would use, with its ``by_alias``, so the bytes are the same;
#: ``response_model`` still documents the shape.
_LOOKUP_JSON = TypeAdapter(LookupResult)


class EntryIn(StrictBody):
    prompt: str = Field(description="The question as the user asked it (at most max_prompt_chars).")
    response: str = Field(description="The answer to serve again.")
    context: Context = Field(None, description="System prompt, model, tools, prior turns: must match exactly.")
    ttl_s: float | None = Field(None, gt=0, description="Lifetime in seconds (default: the server's).")
    tags: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(default_factory=list, max_length=64)
    metadata: dict[str, Any] | None = None
    exact_only: bool = Field(False, description="Answer exact lookups only (e.g. tool results by arguments).")


class EntryCreated(BaseModel):
    id: str


class LookupIn(StrictBody):
    prompt: str = Field(description="The question to look up (at most max_prompt_chars).")
    context: Context = None
    mode: Mode = "intercept"
    threshold: ThresholdOverride = None
    exact_only: bool = False


class InvalidateIn(StrictBody):
    tags: list[Annotated[str, Field(min_length=1, max_length=200)]] | None = Field(None, max_length=64)
    older_than_s: float | None = Field(None, ge=0)
    context: Context = Field(None, description="Present (even null) = only entries of that context.")
    all: bool = Field(False, description="Remove every entry of the tenant (needed when no filter is given).")


class Deleted(BaseModel):
    deleted: int


class FeedbackIn(StrictBody):
    correct: bool
    entry_id: str | None = Field(None, max_length=64)
    lookup_id: str | None = Field(None, max_length=64)


@direct_post(router, "/lookup", response_model=LookupResult, responses=_ERRORS)
async def lookup(body: LookupIn, runtime: RuntimeDep, tenant: TenantDep, request: Request) -> Response:
    """Exact → fuzzy → semantic, slot guard and age check; a miss says why in ``reason``."""
    check_text_lengths(runtime.settings, prompt=body.prompt)
    started = time.perf_counter()
    deadline = deadline_of(request.headers, runtime.settings.request_deadline_s)
    cache = runtime.cache
    try:
        first = _ask(cache.first_look, body, tenant)  # on the loop: what the exact key decides
        # The rest in the cache's lookup rounds, or on a thread when the store's reads leave the process.
        if first is not None:
            res: LookupResult = first
        elif cache.reads_locally:
            queued = _ask(cache.submit_lookup, body, tenant)
            # Not yet in its round when its client leaves or its deadline passes: dropped, slot freed.
            when_client_leaves(request.scope, queued.cancel)
            too_late = asyncio.get_running_loop().call_later(max(0.0, deadline.left()), queued.cancel)
            try:
                res = await settled(queued)
            except asyncio.CancelledError:
                if not queued.cancelled():
                    raise
                if client_left(request.scope):
                    runtime.metrics.abandoned.labels(bulkhead="semantic").inc()
                    return Response(status_code=CLIENT_CLOSED_REQUEST)
                raise runtime.bulkheads["semantic"].overloaded("deadline") from None
            finally:
                too_late.cancel()
        else:
            res = await in_thread(_ask, cache.lookup, body, tenant)
    except Overloaded as refused:  # admitted at the door, but every slot past the exact key is taken
        runtime.metrics.shed.labels(bulkhead=str(refused.extra.get("limit")), reason=refused.reason).inc()
        raise
    runtime.metrics.count_lookup(hit=res.hit, layer=res.layer, exact_only=body.exact_only,
                                 duration_s=time.perf_counter() - started, endpoint="cache")
    return Response(_LOOKUP_JSON.dump_json(res, by_alias=True), media_type="application/json")


def _ask(cache_call: Callable[..., T], body: LookupIn, tenant: str) -> T:
    return cache_call(body.prompt, tenant=tenant, context=body.context, mode=body.mode,
                      threshold=body.threshold, exact_only=body.exact_only)


@router.post("/entries", status_code=status.HTTP_201_CREATED, response_model=EntryCreated, responses=_ERRORS)
def put_entry(body: EntryIn, runtime: RuntimeDep, tenant: TenantDep) -> EntryCreated:
    """Cache ``response`` for ``prompt`` (replacing the answer of the same normalized prompt + context)."""
    check_text_lengths(runtime.settings, prompt=body.prompt)
    entry_id = runtime.cache.put(
        body.prompt, body.response, tenant=tenant, context=body.context, ttl_s=body.ttl_s,
        tags=body.tags, metadata=body.metadata, exact_only=body.exact_only,
    )
    return EntryCreated(id=entry_id)


@router.get("/entries/{entry_id}", responses={404: {"description": "No such entry for this tenant."}})
def get_entry(entry_id: Annotated[str, Path(max_length=64)], runtime: RuntimeDep, tenant: TenantDep
              ) -> dict[str, Any]:
    """One entry (prompt, response, times, hit count, tags, metadata)."""
    return runtime.cache.get(entry_id, tenant=tenant)


@router.delete("/entries/{entry_id}", response_model=Deleted,
               responses={404: {"description": "No such entry for this tenant."}})
def delete_entry(entry_id: Annotated[str, Path(max_length=64)], runtime: RuntimeDep, tenant: TenantDep) -> Deleted:
    """Remove one entry (row and vector)."""
    if not runtime.cache.delete(entry_id, tenant=tenant):
        raise NotFound(f"no cache entry {entry_id!r}", entry_id=entry_id)
    return Deleted(deleted=1)


@router.post("/invalidate", response_model=Deleted, responses=_ERRORS)
def invalidate(body: InvalidateIn, runtime: RuntimeDep, tenant: TenantDep) -> Deleted:
    """Remove entries by ``tags`` (any of), ``older_than_s`` and/or ``context`` (all must match)."""
    kwargs: dict[str, Any] = {"tags": body.tags, "older_than_s": body.older_than_s}
    if "context" in body.model_fields_set:
        kwargs["context"] = body.context
    if body.all:
        if body.model_fields_set & {"tags", "older_than_s", "context"}:
            raise InvalidInput("all=true removes everything; do not combine it with filters", field="all")
        kwargs["everything"] = True
    return Deleted(deleted=runtime.cache.invalidate(tenant=tenant, **kwargs))


@router.post("/feedback", status_code=status.HTTP_204_NO_CONTENT, response_class=Response,
             responses={**_ERRORS, 404: {"description": "Unknown entry or lookup id."}})
def feedback(body: FeedbackIn, runtime: RuntimeDep, tenant: TenantDep) -> Response:
    """Say whether a served answer was right; wrong ones are counted as false hits."""
    runtime.cache.feedback(tenant=tenant, correct=body.correct, entry_id=body.entry_id, lookup_id=body.lookup_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.get("/stats")
def stats(runtime: RuntimeDep, tenant: TenantDep,
          window_s: Annotated[float | None, Query(gt=0, le=3.2e8, description="Last N seconds.")] = None
          ) -> dict[str, Any]:
    """Hits by layer, misses by reason, hit rate, entries, feedback, thresholds (calibrated or not)."""
    return runtime.cache.stats(tenant=tenant, window_s=window_s)


#: Pairs per calibration request: ~20k distinct texts to embed (seconds, not minutes, on one core).
MAX_CALIBRATION_PAIRS = 20_000


class PairIn(StrictBody):
    question1: str = Field(min_length=1, max_length=10_000, description="The cached prompt.")
    question2: str = Field(min_length=1, max_length=10_000, description="The prompt looked up.")
    is_duplicate: bool = Field(description="True when the first prompt's answer is right for the second.")


class CalibrateIn(StrictBody):
    pairs: list[PairIn] | None = Field(None, max_length=MAX_CALIBRATION_PAIRS,
                                       description="Labelled pairs from the tenant's own traffic.")
    from_feedback: bool = Field(False, description="Use feedback on served semantic hits instead of pairs.")
    target_false_hit: float = Field(0.02, gt=0.0, le=0.5, description="Highest acceptable false-hit rate.")
    method: Literal["wilson", "clopper-pearson"] = "wilson"
    confidence: float = Field(0.95, ge=0.5, lt=1.0)
    mode: Mode = "intercept"
    dry_run: bool = Field(False, description="Report without storing.")
    partition_size: int | None = Field(None, ge=1, description="Entries of the scratch partition the pairs are "
                                       "judged in (default: the tenant's size, or every question1).")
    language: Language | None = Field(None, description="Threshold language (default: the pairs').")


@router.post("/calibrate", responses=_ERRORS)
def calibrate(body: CalibrateIn, runtime: RuntimeDep, tenant: TenantDep) -> dict[str, Any]:
    """Set the tenant's threshold from labelled pairs (or feedback) so false hits stay under the target.

    The threshold is the lowest whose upper confidence bound on false hits is at or under the target;
    the answer carries that bound, the number of non-duplicates it rests on, and the whole curve.
    Too few labelled non-duplicates for the target is a 422 that says how many are needed.
    """
    from lastline.cache.pairs import pairs_from_rows

    labelled = None if body.pairs is None else pairs_from_rows(
        (p.model_dump() for p in body.pairs), where="pairs item", first_line=0)
    cal = runtime.cache.calibrate(labelled, tenant=tenant, target=body.target_false_hit, method=body.method,
                                  confidence=body.confidence, mode=body.mode, from_feedback=body.from_feedback,
                                  store=not body.dry_run, source="feedback" if body.from_feedback else "pairs:http",
                                  partition_size=body.partition_size, language=body.language)
    return {"tenant": tenant, "model_id": runtime.cache.model_id, "mode": body.mode, "stored": not body.dry_run,
            **cal.to_dict()}


@router.get("/thresholds")
def thresholds(runtime: RuntimeDep, tenant: TenantDep) -> dict[str, Any]:
    """The thresholds lookups use now, per mode: calibrated, derived, or the model's shipped default.

    The top-level modes are the tenant's language-independent values; ``by_language`` gives what an
    English or a Chinese prompt is held to (calibration from pairs stores under the pairs' language).
    """
    def per_mode(language: str) -> dict[str, Any]:
        return {mode: runtime.cache.get_threshold(tenant=tenant, mode=mode, language=language).to_dict()
                for mode in ("intercept", "fallback")}

    return {**per_mode("*"), "by_language": {language: per_mode(language) for language in ("en", "zh")}}


@router.delete("/thresholds", response_model=Deleted, responses=_ERRORS)
def reset_thresholds(runtime: RuntimeDep, tenant: TenantDep,
                     mode: Annotated[Mode | None, Query()] = None) -> Deleted:
    """Forget the tenant's calibrated thresholds (one mode, or both): the shipped default applies again."""
    return Deleted(deleted=runtime.cache.reset_threshold(tenant=tenant, mode=mode))
