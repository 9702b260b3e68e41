"""``Runtime.kb``: LASTLINE_KB_SEED fills an empty KB once, and a wrong seed path fails by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from lastline import ConfigError, load_settings
from lastline.api.ladder.runtime import Runtime

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo"


def test_seed_fills_an_empty_kb_once_and_never_overwrites(tmp_path: Path) -> None:
    db = tmp_path / "seed.db"
    runtime = Runtime.open(load_settings(db=db, kb_seed=DEMO))
    try:
        seeded = runtime.kb.count()
        assert seeded >= 24
        runtime.kb.delete_document("overview.md")
    finally:
        runtime.close()
    again = Runtime.open(load_settings(db=db, kb_seed=DEMO))
    try:
        assert again.kb.count() == seeded - 1  # not empty: the seed is not ingested again
    finally:
        again.close()


def test_missing_seed_folder_is_a_config_error_naming_the_setting(tmp_path: Path) -> None:
    runtime = Runtime.open(load_settings(db=tmp_path / "x.db", kb_seed=tmp_path / "nope"))
    try:
        with pytest.raises(ConfigError, match="LASTLINE_KB_SEED"):
            _ = runtime.kb
    finally:
        runtime.close()
