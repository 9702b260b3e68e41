"""Request dependencies shared by every router (the runtime, the caller's tenant) and the strict body base."""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, Request
from pydantic import BaseModel, ConfigDict

from lastline import Unauthorized
from lastline.settings import DEFAULT_TENANT

from ..ladder.runtime import Runtime

__all__ = ["RuntimeDep", "StrictBody", "TenantDep", "bearer_token", "get_runtime", "get_tenant", "tenant_of_key"]


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


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]
TenantDep = Annotated[str, Depends(get_tenant)]


class StrictBody(BaseModel):
    """Base of lastline's own request bodies: an unknown field is a 422 naming it, never silently dropped."""

    model_config = ConfigDict(extra="forbid")
