"""``POST /v1/fallback`` (the ladder), declared defaults and degradation events over HTTP."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel

from lastline import Answer, NotFound

from ...ladder.defaults import MAX_TASK_CHARS, DeclaredDefault
from ...ladder.events_store import Event
from ...ladder.ladder import FallbackRequest, first_answer, run_ladder
from ..deps import RuntimeDep, TenantDep, deadline_of
from ..direct_route import direct_post
from ..prefixed_router import PrefixedRouter
from ..threads import in_thread

__all__ = ["router"]

router = PrefixedRouter(prefix="/v1", tags=["fallback"])

TaskPath = Annotated[str, Path(min_length=1, max_length=MAX_TASK_CHARS, description="Task name, or * for any.")]

_ERRORS: dict[int | str, dict[str, str]] = {
    401: {"description": "Missing or unknown API key."},
    404: {"description": "no_fallback_answer: no tier could answer."},
    409: {"description": "no_degraded_writes: a write is never degraded; idempotency_key echoed."},
    413: {"description": "Request body too large."},
    422: {"description": "invalid_input: a field is wrong or too long."},
}


@direct_post(router, "/fallback", response_model=Answer, responses=_ERRORS)
async def fallback(req: FallbackRequest, runtime: RuntimeDep, tenant: TenantDep, request: Request) -> Answer:
    """Answer from the highest rung that can: exact cache → semantic cache → rules → KB → default.

    Writes (and tasks declared with side effects) get 409 ``no_degraded_writes`` without any tier
    being consulted. The rungs fit in the caller's budget when it says one (``X-Lastline-Budget-Ms``).
    """
    deadline = deadline_of(request.headers, runtime.settings.request_deadline_s)
    first = first_answer(runtime, tenant, req)  # on the loop: a refused write or a fresh exact hit
    return first if first is not None else await in_thread(run_ladder, runtime, tenant, req, deadline=deadline)


class DefaultsList(BaseModel):
    defaults: dict[str, DeclaredDefault]


@router.get("/defaults", response_model=DefaultsList)
def list_defaults(runtime: RuntimeDep, tenant: TenantDep) -> DefaultsList:
    """Every declared task for this tenant (the defaults file merged with stored declarations)."""
    return DefaultsList(defaults=runtime.defaults.all(tenant=tenant))


@router.put("/defaults/{task}", response_model=DeclaredDefault)
def put_default(task: TaskPath, body: DeclaredDefault, runtime: RuntimeDep, tenant: TenantDep) -> DeclaredDefault:
    """Declare a task's preset answer (ladder L4) and/or that it has side effects (always 409)."""
    runtime.defaults.put(tenant=tenant, task=task, default=body)
    return body


@router.delete("/defaults/{task}", status_code=204, responses={404: {"description": "Not declared."}})
def delete_default(task: TaskPath, runtime: RuntimeDep, tenant: TenantDep) -> Response:
    """Remove this tenant's stored declaration (entries from the defaults file stay)."""
    if not runtime.defaults.delete(tenant=tenant, task=task):
        raise NotFound(f"no stored default for task {task!r}")
    return Response(status_code=204)


class EventList(BaseModel):
    events: list[Event]


@router.get("/events", response_model=EventList)
def list_events(
    runtime: RuntimeDep,
    tenant: TenantDep,
    limit: Annotated[int, Query(ge=1, le=1000, description="Most recent first.")] = 50,
    since: Annotated[float | None, Query(ge=0, le=1e11, description="Unix time; events after it.")] = None,
) -> EventList:
    """Degradation events of this tenant: tier, reason, depth, confidence, entry id, prompt hash."""
    runtime.flush_telemetry()
    return EventList(events=runtime.events.list(tenant=tenant, limit=limit, since=since))
