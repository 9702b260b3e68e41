"""Loader and scorer for the hand-written contract snippets in tests/data/contracts (tests and bench)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

CASES_DIR = Path(__file__).resolve().parent / "data" / "contracts"
PACKS = {"zh": "contract_zh", "en": "contract_en"}


def load_cases(holdout: bool = False) -> list[dict[str, Any]]:
    """Every case with its language (file name) and pack; ``holdout=True`` loads the untuned set."""
    cases: list[dict[str, Any]] = []
    for path in sorted(CASES_DIR.glob("holdout_*.yaml" if holdout else "[a-z][a-z].yaml")):
        lang = path.stem.rsplit("_", 1)[-1]
        for case in yaml.safe_load(path.read_text(encoding="utf-8")):
            cases.append({**case, "lang": lang, "pack": case.get("pack", PACKS[lang])})
    return cases


def field_errors(engine: Any, case: dict[str, Any]) -> list[str]:
    """Each expected field the engine got wrong, as ``field: got X, want Y``."""
    result = engine.extract(case["text"], pack=case["pack"])
    wrong = []
    for name, want in case["expected"].items():
        got = result.fields.get(name)
        if got != want:
            wrong.append(f"{name}: got {got!r}, want {want!r}")
    return wrong


def score_case(engine: Any, case: dict[str, Any]) -> tuple[int, int]:
    """(correct fields, expected fields) of one case."""
    total = len(case["expected"])
    return total - len(field_errors(engine, case)), total
