"""Request dependencies shared by every router (the runtime, the caller's tenant, the request's deadline)
and the strict body base."""

from __future__ import annotations

import hmac
import math
from collections.abc import Mapping
from typing import Annotated

from fastapi import Depends, Request
from pydantic import BaseModel, ConfigDict

from lastline import InvalidInput, Unauthorized
from lastline.admission import Deadline
from lastline.settings import DEFAULT_TENANT

from ..ladder.runtime import Runtime

__all__ = ["BUDGET_HEADER", "BUDGET_SHARE", "RuntimeDep", "StrictBody", "TenantDep", "bearer_token", "deadline_of",
           "get_runtime", "get_tenant", "tenant_of_key"]

#: The header in which a caller says how long it waits for this answer, in milliseconds.
BUDGET_HEADER = "x-lastline-budget-ms"
#: The OpenAI SDKs send their read timeout, in seconds, on every request; read as a budget too.
OPENAI_SDK_TIMEOUT_HEADER = "x-stainless-read-timeout"
#: The share of a caller's budget the server may spend; the rest is for the answer's way back.
BUDGET_SHARE = 0.9


def _runtime_of(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


# Both dependencies are ``async def`` because they do no I/O: FastAPI runs a plain ``def``
# dependency in the thread pool, so every request paid two extra thread hops (each a wake-up and a
# GIL hand-over) before its endpoint ran.
async def get_runtime(request: Request) -> Runtime:
    return _runtime_of(request)


def bearer_token(authorization: str) -> str | None:
    """The key in an ``Authorization: Bearer <key>`` header; ``None`` when there is none."""
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


def tenant_of_key(keys: dict[str, str], token: str) -> str | None:
    """The tenant an API key names, compared in constant time so response timing leaks no key prefix."""
    for key, tenant in keys.items():
        if hmac.compare_digest(key.encode(), token.encode()):
            return tenant
    return None


async def get_tenant(request: Request) -> str:
    """Tenant from ``Authorization: Bearer <key>``; single-tenant ``default`` when no keys are set."""
    keys = _runtime_of(request).settings.api_keys
    if not keys:
        return DEFAULT_TENANT
    token = bearer_token(request.headers.get("authorization", ""))
    if token is None:
        raise Unauthorized("missing API key: send 'Authorization: Bearer <key>'")
    tenant = tenant_of_key(keys, token)
    if tenant is None:
        raise Unauthorized("unknown API key")
    return tenant


def deadline_of(headers: Mapping[str, str], ceiling_s: float) -> Deadline:
    """When this request must be answered by: ``ceiling_s`` (``request_deadline_s``) from now, or sooner
    when its caller says it waits less (:data:`BUDGET_HEADER`, else the OpenAI SDKs' read timeout).

    Why: an answer the caller has stopped waiting for is work for nobody. Within its budget the ladder
    skips a slow rung for the ones below it (the declared default arrives in time), and a lookup still
    queued for its round is refused with ``503 overloaded`` the caller can act on, not left to its
    time-out. A malformed :data:`BUDGET_HEADER` is a 422; the SDK's header, not ours to define, is
    used only when it reads as a positive number.
    """
    raw = headers.get(BUDGET_HEADER)
    if raw is not None:
        budget_s = _positive_seconds(raw, per_second=1000)
        if budget_s is None:
            raise InvalidInput(f"{BUDGET_HEADER} must be a positive number of milliseconds, got {raw[:40]!r}")
    else:
        sdk = headers.get(OPENAI_SDK_TIMEOUT_HEADER)
        budget_s = _positive_seconds(sdk, per_second=1) if sdk is not None else None
    if budget_s is None:
        return Deadline.after(ceiling_s)
    return Deadline.after(min(ceiling_s, BUDGET_SHARE * budget_s))


def _positive_seconds(value: str, *, per_second: float) -> float | None:
    """``value`` (a count of ``1 / per_second`` seconds) in seconds; ``None`` unless finite and above 0."""
    try:
        seconds = float(value) / per_second
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds > 0 else None


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
TenantDep = Annotated[str, Depends(get_tenant)]


class StrictBody(BaseModel):
    """Base of lastline's own request bodies: an unknown field is a 422 naming it, never silently dropped."""

    model_config = ConfigDict(extra="forbid")
