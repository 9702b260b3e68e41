"""A router that a request outside its path prefix passes at once.

Why: the app tries its included routers in order, and FastAPI asks every route of a router in
turn, at ≈2–3 µs a route here (it sets and restores its own scope keys around each). So a request
paid for every route of every router ahead of its own: ≈35 µs of matching for a cache lookup behind
the ops, fallback and OpenAI routers, ≈70 µs for a KB search behind them and the cache's — a tenth
of what an exact hit costs the server. A router whose every path starts with its prefix cannot
match a path that does not, so it answers "no" from the prefix alone; only the routers a path can
reach are asked route by route. The app also includes the routers the flood calls first
(``api/app.py``), and each router lists its hot route first.
"""

from __future__ import annotations

from fastapi import APIRouter
from starlette._utils import get_route_path
from starlette.routing import Match
from starlette.types import Scope

__all__ = ["PrefixedRouter"]


class PrefixedRouter(APIRouter):
    """An ``APIRouter`` that says ``Match.NONE`` at once to a path outside its ``prefix``."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if self.prefix:
            path = get_route_path(scope)  # the path below any root path, as the routes see it
            if path != self.prefix and not path.startswith(self.prefix + "/"):
                return Match.NONE, {}
        return super().matches(scope)
