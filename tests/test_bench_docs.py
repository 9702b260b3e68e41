"""docs/benchmarks.md is written by the bench scripts: each section has an owner, and writing one leaves the rest.

The writer (``bench/_common.py::write_section``) replaces one section up to the next heading of its
own level or higher, so a script can own a ``###`` subsection under a shared ``##`` intro; a
script's ``Section`` pushes the headings it prints below its own level so they never cut it short.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import _common  # noqa: E402
import kb_eval  # noqa: E402

BENCHMARKS = ROOT / "docs" / "benchmarks.md"
#: Sections no script writes (yet), and why: each goes once its scripts are re-run with --write.
HAND_KEPT = {
    "### Shipped thresholds, first measurement (kept by hand)":
        "an earlier version of bench/shipped_thresholds.py; it now writes 'Default thresholds per language'",
    "## Slot guard: polarity and names":
        "bench/slot_guard_rules.py --rules-only --write writes it; the copy here pastes that run's QQP table "
        "beside earlier runs",
}

DOC = """# Benchmarks

## Cache

Intro, no figures.

### Hit rate (`a.py`)

old a

#### a detail

old a detail

### Scale (`b.py`)

b stays

## Next

next stays
"""


def test_a_subsection_is_replaced_up_to_its_next_sibling_and_the_rest_stays(tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text(DOC, encoding="utf-8")
    _common.write_section("### Hit rate (`a.py`)", "### Hit rate (`a.py`)\n\nnew a\n", doc)
    text = doc.read_text(encoding="utf-8")
    assert "old a" not in text and "new a" in text
    assert text.replace("### Hit rate (`a.py`)\n\nnew a\n", "") == DOC.replace(
        "### Hit rate (`a.py`)\n\nold a\n\n#### a detail\n\nold a detail\n", "")


def test_a_top_section_takes_its_subsections_and_a_missing_one_is_appended(tmp_path: Path) -> None:
    doc = tmp_path / "benchmarks.md"
    doc.write_text(DOC, encoding="utf-8")
    _common.write_section("## Cache", "## Cache\n\nall new\n", doc)
    _common.write_section("## Added", "## Added\n\nat the end\n", doc)
    assert doc.read_text(encoding="utf-8") == (
        "# Benchmarks\n\n## Cache\n\nall new\n\n## Next\n\nnext stays\n\n## Added\n\nat the end\n")


@pytest.mark.parametrize(("heading", "text"), [("Hit rate", "Hit rate\n"), ("## Hit rate", "## Other\n")])
def test_a_heading_that_is_not_the_sections_first_line_is_refused(tmp_path: Path, heading: str, text: str) -> None:
    with pytest.raises(ValueError, match="heading"):
        _common.write_section(heading, text, tmp_path / "benchmarks.md")


def test_headings_a_script_prints_stay_inside_its_section(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = _common.Section("### Hit rate (`a.py`)", command="python bench/a.py --write")
    out("## Through the cache\n")
    out("| a | b |", "\n|---|---|")
    text = out.text()
    assert text.startswith("### Hit rate (`a.py`)\n\nMachine: ") and "Produced by `python bench/a.py --write`" in text
    assert "\n#### Through the cache\n" in text and "| a | b | \n|---|---|" in text
    assert "## Through the cache" in capsys.readouterr().out  # printed as the script said it
    doc = tmp_path / "benchmarks.md"
    doc.write_text(DOC, encoding="utf-8")
    out.write(doc)
    assert "### Scale (`b.py`)\n\nb stays" in doc.read_text(encoding="utf-8")


def test_kb_eval_renders_its_section_and_writing_it_changes_nothing_else(tmp_path: Path) -> None:
    curve = {f"k={k},w={w}": (0.5, 0.9) for k in kb_eval.RRF_KS for w in kb_eval.VECTOR_WEIGHTS}
    curve3 = {f"k={k},we={we},wu={wu}": (0.6, 0.9) for k in kb_eval.RRF_KS_3 for we in kb_eval.ENGLISH_WEIGHTS
              for wu in kb_eval.USE_WEIGHTS}
    results = {
        "scifact/use+minilm-onnx": {"keyword": (0.61, 0.88), "vector": (0.42, 0.8), "english": (0.64, 0.93),
                                    "hybrid": (0.67, 0.95), "english_queries": 300, "english_vectors": 8696,
                                    "hybrid_ms": 41.2, "ingest_chunks_per_s": 7.8, "curve": curve, "curve3": curve3},
        "segmenter/jieba": (0.51, 0.9),
    }
    out = kb_eval.Section(kb_eval.SECTION, command="python bench/kb_eval.py --write")
    kb_eval.print_tables(results, out)
    text = out.text()
    assert "| scifact | use+minilm-onnx | 0.610 / 0.880 | 0.420 / 0.800 | 0.640 / 0.930 | 0.670 / 0.950 |" in text
    assert "\n#### Chinese segmentation" in text and "| jieba | 0.510 | 0.900 |" in text
    assert "\n#### Two-way fusion curve, scifact/use+minilm-onnx" in text and "\n#### Three-way fusion curve" in text
    doc = tmp_path / "benchmarks.md"
    before = BENCHMARKS.read_text(encoding="utf-8")
    doc.write_text(before, encoding="utf-8")
    out.write(doc)
    after = doc.read_text(encoding="utf-8")
    start = before.index(kb_eval.SECTION)
    end = before.index("\n### Ingest speed and query latency (`bench/kb_scale.py`)")
    assert after == before[:start] + text + before[end:]


def _sections(text: str) -> list[tuple[int, str]]:
    return [(len(m.group(1)), m.group(0)) for m in re.finditer(r"^(#{2,3}) .+$", text, re.M)]


def test_every_section_of_benchmarks_md_has_a_script_that_writes_it() -> None:
    scripts = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "bench").glob("*.py"))
    sections = _sections(BENCHMARKS.read_text(encoding="utf-8"))
    orphans = []
    for i, (level, heading) in enumerate(sections):
        if heading in scripts or heading in HAND_KEPT:
            continue
        parent = next((h for lv, h in reversed(sections[:i]) if lv < level), None)
        if parent in HAND_KEPT or (parent is not None and parent in scripts):
            continue  # inside a section someone owns
        children = [h for lv, h in sections[i + 1:next((j for j in range(i + 1, len(sections))
                                                        if sections[j][0] <= level), len(sections))]]
        if level == 2 and children and all(c in scripts or c in HAND_KEPT for c in children):
            continue  # an intro over subsections that each have an owner
        orphans.append(heading)
    assert orphans == []
    assert set(HAND_KEPT) <= {h for _, h in sections}, "a hand-kept section is gone: drop it from HAND_KEPT"
