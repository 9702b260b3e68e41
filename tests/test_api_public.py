"""The public names of ``lastline.api`` are pinned."""

from __future__ import annotations

import lastline.api


def test_api_public_names() -> None:
    assert sorted(lastline.api.__all__) == ["FallbackRequest", "Runtime", "create_app", "run_ladder"]
