"""A router that a request outside its path prefix passes at once.

Why: the app tries its included routers in order, and FastAPI asks every route of a router in
turn (setting and restoring its own scope keys around each). So a request paid for every route of
every router ahead of its own: a py-spy profile of exact hits at 64 clients, the cache's router
then behind the ops, fallback and OpenAI routers, found route matching in 9.3 % of the server's
samples. A router whose every path starts with its prefix cannot match a path that does not, so it
answers "no" from the prefix alone; only the routers a path can reach are asked route by route.
The app also includes the routers the flood calls first (``api/app.py``), and each router lists
its hot route first. The same profile afterwards: 2.1 % (docs/reliability.md).
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
