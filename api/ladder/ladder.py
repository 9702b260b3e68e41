"""The fallback ladder: what ``POST /v1/fallback`` (and the OpenAI-compatible endpoint) answer with.

    guard     write, or a task declared with side effects → 409 no_degraded_writes (nothing read)
    L0 / L1   cache: exact / fuzzy (depth 0), semantic kNN + calibrated threshold + slot guard (depth 1)
    L2        rules: a pack whose triggers fit the task extracts fields (confidence medium)
    L3        knowledge base: FAQ match or hybrid search, extractive, with citations
    L4        the declared default for the task (or the route-wide ``*``), confidence low
    else      404 no_fallback_answer

Each rung is one small function that returns an :class:`Answer` or ``None`` and notes what it
saw in the trail (``cache:below_threshold rules:no_match kb:no_answer``), which goes into the
degradation event with the prompt's hash — never its text unless the operator opted in. Every
tier is always on the runtime; a tier whose model cannot load says so in the trail and the next
rung answers.

Under load (docs/reliability.md) the cache, rules and KB rungs each run through their own bulkhead
with a hard timeout — ``min(tier_timeout_s, what the request's deadline leaves)``: a rung that
overruns (``kb:timeout``) or whose bulkhead is full (``kb:overloaded``) is skipped, the reason goes
into the trail, and the rung below still answers. The degradation event goes to the background
writer, not into the request's own transaction.

The server first asks :func:`first_answer` on its event loop: the guard and the cache's exact key
decide a refused write or a fresh exact hit there, with the same answer, event and counts as the
ladder's; anything else runs the whole ladder on a thread.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from lastline import (
    DEPTH,
    Answer,
    Confidence,
    InvalidInput,
    LastlineError,
    ModelUnavailable,
    NoDegradedWrites,
    NoFallbackAnswer,
    Overloaded,
    Source,
    language_of,
    normalize_text,
    notice_for,
    text_hash,
)
from lastline.admission import Deadline, TierTimeout
from lastline.cache import LookupResult, Mode
from lastline.rules import Pack, RuleEngine

from .defaults import MAX_TASK_CHARS
from .events_store import NewEvent
from .runtime import Runtime
from .text_limits import check_text_lengths

__all__ = ["Context", "FallbackRequest", "Label", "ThresholdOverride", "first_answer", "run_ladder"]

#: A cache context as JSON carries it (system prompt, model, tools…): it must match exactly.
Context = str | dict[str, Any] | list[Any] | None
#: A per-call cosine threshold, for every face that lets a caller override the calibrated one.
ThresholdOverride = Annotated[float | None, Field(ge=0.0, le=1.0, description="Override the calibrated threshold.")]
#: Task names, idempotency keys and reasons: short labels, never documents.
Label = Annotated[str | None, Field(max_length=MAX_TASK_CHARS)]


class FallbackRequest(BaseModel):
    """One degraded request. Only ``prompt`` is required."""

    prompt: str = Field(min_length=1, description="The user's question (at most max_prompt_chars).")
    context: Context = Field(
        None, description="Context fingerprint (system prompt, model, tool name…); must match exactly."
    )
    task: Label = Field(None, description="Task or route name (rules, defaults).")
    text: str | None = Field(
        None, description="Document text for rule extraction (else the prompt; at most max_prompt_chars)."
    )
    operation: Literal["read", "write"] = Field("read", description="write → 409, never degraded.")
    idempotency_key: Label = Field(None, description="Echoed back on a refused write.")
    mode: Mode = Field("fallback", description="Cache threshold mode.")
    threshold: ThresholdOverride = None
    reason: Label = Field(None, description="Why the caller degraded (e.g. upstream_timeout), for events.")
    exact_only: bool = Field(
        False, description="Tool-result lookup: exact cache layer only (prompt = canonical JSON of the "
        "arguments, context = tool name + version); a hit is served with confidence at most medium."
    )


@dataclass
class _LadderRun:
    """One request on its way down the ladder: the notes its rungs leave, and its degradation event."""

    runtime: Runtime
    tenant: str
    req: FallbackRequest
    route: str
    started: float = field(default_factory=time.perf_counter)
    trail: list[str] = field(default_factory=list)

    @classmethod
    def enter(cls, runtime: Runtime, tenant: str, req: FallbackRequest, route: str) -> _LadderRun:
        """What every request passes before any rung: its lengths checked, and a write refused (409)."""
        context_text = req.context if isinstance(req.context, str) else None
        check_text_lengths(runtime.settings, prompt=req.prompt, text=req.text, context=context_text)
        run = cls(runtime, tenant, req, route)
        if req.operation == "write" or runtime.defaults.has_side_effects(tenant=tenant, task=req.task):
            why = "operation=write" if req.operation == "write" else f"task {req.task!r} has side effects"
            run.trail.append(f"guard:{'write' if req.operation == 'write' else 'side_effects'}")
            run.record("refused", None)
            runtime.metrics.fallback.labels(outcome="refused_write").inc()
            raise NoDegradedWrites(
                f"refusing to degrade a write ({why}): nothing cached, defaulted or replayed",
                idempotency_key=req.idempotency_key,
            )
        return run

    def record(self, tier: str, answer: Answer | None) -> None:
        req = self.req
        self.runtime.record_event(
            NewEvent(
                tenant=self.tenant, route=self.route, tier=tier, path=" ".join(self.trail),
                prompt_hash=text_hash(normalize_text(req.prompt)),
                duration_ms=(time.perf_counter() - self.started) * 1000,
                source=answer.source.value if answer else None, reason=req.reason,
                depth=answer.degradation_depth if answer else None,
                confidence=answer.confidence.value if answer else None,
                entry_id=answer.entry_id if answer else None, task=req.task,
                prompt=req.prompt, answer=_answer_text(answer),
            ),
        )

    def answered(self, answer: Answer) -> Answer:
        tier = answer.layer if answer.source is Source.CACHE and answer.layer else answer.source.value
        self.record(tier, answer)
        self.runtime.metrics.count_answer(answer.source.value, answer.confidence.value)
        return answer


def first_answer(runtime: Runtime, tenant: str, req: FallbackRequest, *, route: str = "fallback") -> Answer | None:
    """What the ladder answers without a thread — a refused write, or a fresh exact cache hit — else None.

    Why: agents whose providers fail ask lastline what they asked before, and a question asked again
    is an exact hit: one indexed read of the embedded file. On a thread it paid a hop to a request
    thread and another to the cache bulkhead's thread, each with a wait for the interpreter lock, more
    than the read itself. So the server runs this on its event loop first, and :func:`run_ladder` on a
    thread only when it returns None — having recorded nothing, so the ladder runs whole and counts
    once. None at once where reads leave the process (PostgreSQL): the loop would wait on the network.
    """
    try:
        cache = runtime.cache
    except ModelUnavailable:  # the ladder notes it in the trail, and its rungs below answer
        return None
    if not cache.reads_locally:
        return None
    run = _LadderRun.enter(runtime, tenant, req, route)
    started = time.perf_counter()
    res = cache.first_look(req.prompt, tenant=tenant, context=req.context, mode=req.mode,
                           threshold=req.threshold, exact_only=req.exact_only, hits_only=True)
    if res is None:
        return None
    answer = _cache_answer(runtime, req, language_of(req.prompt), run.trail, res, started)
    return run.answered(answer) if answer is not None else None


def run_ladder(runtime: Runtime, tenant: str, req: FallbackRequest, *, route: str = "fallback",
               deadline: Deadline | None = None) -> Answer:
    """Answer ``req`` from the highest rung that can; raise 409 for writes, 404 when none can.

    ``deadline`` (default: ``request_deadline_s`` from now) bounds the rungs with a tier: each gets
    what is left of it, at most its ``tier_timeout_s``, and is skipped (``:timeout``) when none is.
    """
    run = _LadderRun.enter(runtime, tenant, req, route)
    trail = run.trail
    lang = language_of(req.prompt)
    deadline = deadline if deadline is not None else Deadline.after(runtime.settings.request_deadline_s)
    for rung, bulkhead in ((_from_cache, "cache"), (_from_rules, "rules"), (_from_kb, "kb"), (_from_default, None)):
        try:
            answer = _bounded(runtime, tenant, req, lang, trail, rung, bulkhead, deadline)
        except LastlineError as exc:
            trail.append(f"{rung.__name__.removeprefix('_from_')}:{exc.code}")
            with contextlib.suppress(LastlineError):  # storage may be what failed: keep the first error
                run.record("error", None)
            runtime.metrics.fallback.labels(outcome="error").inc()
            raise
        if answer is not None:
            return run.answered(answer)
    run.record("none", None)
    runtime.metrics.fallback.labels(outcome="no_answer").inc()
    raise NoFallbackAnswer(
        "no tier could answer: " + " ".join(trail), path=" ".join(trail)
    )


def _bounded(runtime: Runtime, tenant: str, req: FallbackRequest, lang: str, trail: list[str], rung: Any,
             bulkhead: str | None, deadline: Deadline) -> Answer | None:
    """One rung, through its bulkhead with a hard timeout; skipped (reason in the trail) when it cannot run.

    The rung notes into its own trail, merged once it returns: a rung that overran may still be
    running on its bulkhead's thread, and must not write into this request's trail afterwards.
    """
    if bulkhead is None:
        answer: Answer | None = rung(runtime, tenant, req, lang, trail)
        return answer
    name = rung.__name__.removeprefix("_from_")
    own: list[str] = []
    budget = deadline.budget(runtime.settings.tier_timeout_s)
    try:
        if budget <= 0:
            raise TierTimeout(name, 0.0)
        answer = runtime.bulkheads[bulkhead].call(lambda: rung(runtime, tenant, req, lang, own), tenant=tenant,
                                                  timeout_s=budget)
    except TierTimeout:
        reason = "timeout"
    except Overloaded:
        reason = "overloaded"
    except BaseException:
        trail.extend(own)
        raise
    else:
        trail.extend(own)
        return answer
    trail.append(f"{name}:{reason}")
    runtime.metrics.tier_skips.labels(tier=name, reason=reason).inc()
    return None


def _answer_text(answer: Answer | None) -> str | None:
    if answer is None:
        return None
    if answer.answer is not None:
        return str(answer.answer)
    return json.dumps(answer.fields, ensure_ascii=False, sort_keys=True) if answer.fields else None


def _from_cache(runtime: Runtime, tenant: str, req: FallbackRequest, lang: str, trail: list[str]) -> Answer | None:
    """L0/L1: one cache lookup covers exact, fuzzy and semantic layers, cheapest first."""
    started = time.perf_counter()
    try:
        res = runtime.cache.lookup(
            req.prompt, tenant=tenant, context=req.context, mode=req.mode, threshold=req.threshold,
            exact_only=req.exact_only,
        )
    except ModelUnavailable:
        trail.append("cache:model_unavailable")
        return None
    return _cache_answer(runtime, req, lang, trail, res, started)


def _cache_answer(runtime: Runtime, req: FallbackRequest, lang: str, trail: list[str], res: LookupResult,
                  started: float) -> Answer | None:
    """A cache lookup's result as the ladder's answer (None for a miss, its reason in the trail), counted."""
    runtime.metrics.count_lookup(
        hit=res.hit, layer=res.layer, exact_only=req.exact_only, duration_s=time.perf_counter() - started,
        endpoint="fallback",
    )
    layer = res.layer
    if not res.hit or layer is None or res.confidence is None:
        trail.append(f"cache:{res.reason or 'miss'}")
        return None
    trail.append(f"cache:{layer}")
    stale = res.stale
    confidence = res.confidence
    if req.exact_only and confidence is Confidence.HIGH:
        confidence = Confidence.MEDIUM  # a tool's last good result: the live data may have moved on
    return Answer(
        answer=res.answer, source=Source.CACHE, confidence=confidence,
        degradation_depth=DEPTH[layer], stale=stale, age_s=res.age_s, similarity=res.similarity,
        notice=notice_for(Source.CACHE, lang, stale), layer=layer, entry_id=res.entry_id,
    )


def _from_rules(runtime: Runtime, tenant: str, req: FallbackRequest, lang: str, trail: list[str]) -> Answer | None:
    """L2: a rule pack whose triggers fit the task extracts fields from the text (or the prompt)."""
    engine = runtime.rules
    text = req.text or req.prompt
    pack = engine.match_task(req.task, text, tenant=tenant)
    if pack is None:
        trail.append("rules:no_match")
        return None
    try:
        result = engine.extract(text, pack=pack.name, tenant=tenant)
    except InvalidInput as exc:  # e.g. text past the engine's own limit: the next rung may still answer
        trail.append(f"rules:{pack.name}:{exc.code}")
        return None
    fields = dict(result.fields)
    if not any(v not in (None, "", [], {}) for v in fields.values()):
        trail.append(f"rules:{pack.name}:no_fields")
        return None
    trail.append(f"rules:{pack.name}")
    return Answer(
        answer=_render_fields(engine, pack, fields, tenant), source=Source.RULES, confidence=Confidence.MEDIUM,
        degradation_depth=DEPTH["rules"], fields=fields, notice=notice_for(Source.RULES, lang),
        layer="rules", entry_id=f"rules:{pack.name}",
    )


def _render_fields(engine: RuleEngine, pack: Pack, fields: dict[str, Any], tenant: str) -> str:
    """The pack's own template when it has one, else one ``name: value`` line per found field."""
    if "default" in pack.templates:
        try:
            return str(engine.render(template_id=f"{pack.name}.default", data=fields, tenant=tenant)).strip()
        except InvalidInput:
            pass  # a template that cannot render these values: fall back to plain lines
    return "\n".join(f"{k}: {_plain(v)}" for k, v in fields.items() if v not in (None, "", [], {}))


def _plain(value: Any) -> str:
    if isinstance(value, dict) and "amount" in value:
        return " ".join(str(value[k]) for k in ("amount", "currency") if value.get(k))
    return str(value)


def _from_kb(runtime: Runtime, tenant: str, req: FallbackRequest, lang: str, trail: list[str]) -> Answer | None:
    """L3: an extractive answer from the tenant's documents or FAQ, with citations."""
    try:
        found = runtime.kb_searches.answer(req.prompt, tenant=tenant)
    except ModelUnavailable:
        trail.append("kb:model_unavailable")
        return None
    if found is None:
        trail.append("kb:no_answer")
        return None
    trail.append(f"kb:{found.layer or 'answer'}")
    answer: Answer = found.model_copy(
        update={
            "degradation_depth": DEPTH["kb"],
            "notice": found.notice or notice_for(Source.KB, lang),
            "layer": found.layer or "kb",
        }
    )
    return answer


def _from_default(
    runtime: Runtime, tenant: str, req: FallbackRequest, lang: str, trail: list[str]
) -> Answer | None:
    """L4: the operator's declared default for this task, else the route-wide ``*`` default."""
    found = runtime.defaults.answer_for(tenant=tenant, task=req.task)
    if found is None:
        trail.append("default:none")
        return None
    task, text = found
    trail.append(f"default:{task}")
    return Answer(
        answer=text, source=Source.DEFAULT, confidence=Confidence.LOW, degradation_depth=DEPTH["default"],
        notice=notice_for(Source.DEFAULT, lang), layer="default", entry_id=f"default:{task}",
    )
