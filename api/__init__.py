"""lastline.api: the HTTP service and the ``lastline`` CLI, wiring the tiers into the ladder."""

from .app import create_app
from .ladder.ladder import FallbackRequest, run_ladder
from .ladder.runtime import Runtime

__all__ = ["FallbackRequest", "Runtime", "create_app", "run_ladder"]
