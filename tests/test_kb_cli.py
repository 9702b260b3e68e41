"""``lastline kb`` commands: ingest summary (with failures), search --json, answer, documented help."""

from __future__ import annotations

import json
from pathlib import Path

from _kb_files import write_folder
from typer.testing import CliRunner

from lastline.api.cli import app

runner = CliRunner()


def test_ingest_prints_a_summary_with_failures_and_is_incremental(tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "docs")
    (folder / "broken.docx").write_bytes(b"not a zip")
    db = str(tmp_path / "cli.db")
    first = runner.invoke(app, ["kb", "ingest", str(folder), "--db", db, "--json"])
    assert first.exit_code == 0, first.output
    report = json.loads(first.output)
    assert report["added"] == 11 and report["failed"] == 1
    assert report["cpu_seconds"]["encode"] > 0  # what each stage cost, for a slow ingest to be read
    assert report["failures"][0]["path"].endswith("broken.docx") and "DOCX" in report["failures"][0]["reason"]
    (folder / "notes.txt").unlink()
    second = runner.invoke(app, ["kb", "ingest", str(folder), "--db", db, "--sync", "--json"])
    summary = json.loads(second.output)
    assert (summary["added"], summary["unchanged"], summary["removed"]) == (0, 10, 1)
    table = runner.invoke(app, ["kb", "ingest", str(folder), "--db", db])
    assert table.exit_code == 0 and "unchanged" in table.output and "broken.docx" in table.output


def test_search_json_and_answer(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.db")
    runner.invoke(app, ["kb", "ingest", str(write_folder(tmp_path / "docs")), "--db", db, "--collection", "help"])
    out = runner.invoke(app, ["kb", "search", 'gift cards "refunded" NEAR(', "--db", db, "--json", "-k", "3"])
    assert out.exit_code == 0, out.output
    results = json.loads(out.output)["results"]
    assert len(results) == 3 and {"doc_id", "chunk_id", "title", "text", "score", "source", "span"} <= set(results[0])
    none = runner.invoke(app, ["kb", "search", "gift cards", "--db", db, "--json", "--collection", "other"])
    assert json.loads(none.output)["results"] == []
    found = runner.invoke(app, ["kb", "answer", "How long do refunds take?", "--db", db, "--json"])
    assert found.exit_code == 0 and json.loads(found.output)["answer"] == "Refunds take five working days."
    missing = runner.invoke(app, ["kb", "answer", "who wrote hamlet", "--db", db])
    assert missing.exit_code == 1


def test_every_kb_command_has_an_example_in_its_help() -> None:
    for command in ("ingest", "search", "answer", "status"):
        result = runner.invoke(app, ["kb", command, "--help"])
        assert result.exit_code == 0 and "Example: lastline kb " + command in " ".join(result.output.split())
