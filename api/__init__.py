"""lastline.api: the HTTP service and the ``lastline`` CLI, wiring the tiers into the ladder."""

from .app import create_app
from .runtime import Runtime

__all__ = ["Runtime", "create_app"]
