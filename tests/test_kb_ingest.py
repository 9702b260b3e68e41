"""Ingest: every format, incremental re-ingest, --sync, failures reported, all-or-nothing writes."""

from __future__ import annotations

from pathlib import Path

import pytest
from _kb_db import count, failing_chunk_insert, keyword_rows
from _kb_files import make_pdf, write_folder

from lastline import Embedder, PostgresStorage, SQLiteStorage, StorageError, get_embedder, open_storage
from lastline.kb import KnowledgeBase
from lastline.kb._spaces import PRIMARY
from lastline.kb._vectors import space_model

pytestmark = pytest.mark.backends("sqlite", "postgresql")
Storage = SQLiteStorage | PostgresStorage


@pytest.fixture
def kb(storage: Storage, embedder: Embedder) -> KnowledgeBase:
    return KnowledgeBase(storage, embedder)


def test_folder_of_every_format_is_ingested_with_fts_and_vectors_in_step(kb: KnowledgeBase, tmp_path: Path) -> None:
    report = kb.ingest(write_folder(tmp_path / "docs"))
    assert report.failed == [] and report.removed == []
    files = {"handbook.md", "shipping.html", "notes.txt", "warranty.pdf", "refunds.docx", "d1", "d2"}
    assert set(report.added) >= files
    assert sum(a.startswith("faq.csv#") for a in report.added) == 2
    assert sum(a.startswith("more_faq.jsonl#") for a in report.added) == 2
    chunks = count(kb.storage, "kb_chunks")
    assert report.chunks == chunks
    assert keyword_rows(kb.storage) == chunks == count(kb.storage, "kb_vec")
    assert count(kb.storage, "kb_faq") == 4


def test_reingest_skips_unchanged_replaces_changed_and_keeps_removed_files_without_sync(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    folder = write_folder(tmp_path / "docs")
    kb.ingest(folder)
    again = kb.ingest(folder)
    assert again.added == [] and again.updated == [] and again.chunks == 0 and len(again.unchanged) == 11
    (folder / "notes.txt").write_text("Support hours\n\nNow from 8 to 18.\n", encoding="utf-8")
    (folder / "handbook.md").unlink()
    changed = kb.ingest(folder)
    assert changed.updated == ["notes.txt"] and changed.removed == []
    assert "8 to 18" in kb.get_document("notes.txt")["text"]
    assert kb.get_document("handbook.md") is not None  # no --sync: documents of deleted files stay


def test_sync_removes_documents_whose_files_are_gone(kb: KnowledgeBase, tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "docs")
    kb.ingest(folder)
    (folder / "handbook.md").unlink()
    (folder / "faq.csv").unlink()
    report = kb.ingest(folder, sync=True)
    assert "handbook.md" in report.removed and sum(r.startswith("faq.csv#") for r in report.removed) == 2
    assert kb.get_document("handbook.md") is None
    assert keyword_rows(kb.storage) == count(kb.storage, "kb_chunks") == count(kb.storage, "kb_vec")
    assert kb.search("Refunds are paid back to the original card", k=3)[0].doc_id != "handbook.md"


def test_rows_dropped_from_an_faq_file_are_removed(kb: KnowledgeBase, tmp_path: Path) -> None:
    faq = tmp_path / "faq.csv"
    faq.write_text("question,answer\nQ one?,A one.\nQ two?,A two.\n", encoding="utf-8")
    kb.ingest(faq)
    faq.write_text("question,answer\nQ one?,A one.\n", encoding="utf-8")
    report = kb.ingest(faq)
    assert len(report.removed) == 1 and len(report.unchanged) == 1


def test_a_file_that_cannot_be_parsed_is_reported_and_the_rest_ingested(kb: KnowledgeBase, tmp_path: Path) -> None:
    folder = write_folder(tmp_path / "docs")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 garbage")
    (folder / "photo.png").write_bytes(b"\x89PNG")
    report = kb.ingest(folder)
    assert [p for p, _ in report.failed] == [str(folder / "broken.pdf")]
    assert "PDF" in report.failed[0][1]
    assert report.skipped == [str(folder / "photo.png")]
    assert "warranty.pdf" in report.added


def test_a_failed_write_leaves_no_half_written_document(kb: KnowledgeBase, tmp_path: Path) -> None:
    path = tmp_path / "long.txt"
    path.write_text("\n\n".join(f"Paragraph {i} " + "word " * 60 for i in range(30)), encoding="utf-8")
    with failing_chunk_insert(kb.storage, 3), pytest.raises(StorageError):
        kb.ingest(path)
    for table in ("kb_documents", "kb_chunks", "kb_vec", "kb_doc_tags", "kb_files"):
        assert count(kb.storage, table) == 0, table
    assert keyword_rows(kb.storage) == 0
    assert kb.ingest(path).added == ["long.txt"]


def test_a_model_change_re_embeds_every_chunk(storage: Storage, embedder: Embedder, tmp_path: Path) -> None:
    make_pdf(tmp_path / "w.pdf", [["Every device has a two year warranty."]])
    KnowledgeBase(storage, embedder).ingest(tmp_path)
    other = get_embedder("minilm-onnx")
    kb = KnowledgeBase(storage, other)
    assert kb.store.meta("model_id") == space_model(other, kb.config.reads(PRIMARY))  # model and cut
    assert count(storage, "kb_vec") == count(storage, "kb_chunks") == 1
    assert kb.search("warranty for devices", mode="vector", k=1)[0].doc_id == "w.pdf"


def test_missing_path_is_invalid_input(kb: KnowledgeBase, tmp_path: Path) -> None:
    from lastline import InvalidInput

    with pytest.raises(InvalidInput, match="does not exist"):
        kb.ingest(tmp_path / "nope")


def test_bm25_scores_after_replacing_documents_equal_a_fresh_index(
    storage: Storage, embedder: Embedder, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(12):
        (docs / f"d{i}.txt").write_text(f"Topic {i}\n\nrefund policy number {i} " + "filler " * i, encoding="utf-8")
    kb = KnowledgeBase(storage, embedder)
    kb.ingest(docs)
    for i in range(6):  # replace half of them, delete two
        (docs / f"d{i}.txt").write_text(f"Topic {i}\n\nwarranty terms {i}", encoding="utf-8")
    (docs / "d10.txt").unlink()
    (docs / "d11.txt").unlink()
    kb.ingest(docs, sync=True)
    # A fresh index: a new SQLite file (FTS5's statistics span the file); on PostgreSQL a new tenant,
    # whose BM25 statistics are its own.
    fresh_storage = open_storage(tmp_path / "fresh.db") if isinstance(storage, SQLiteStorage) else storage
    fresh_tenant = "default" if isinstance(storage, SQLiteStorage) else "fresh"
    fresh = KnowledgeBase(fresh_storage, embedder)
    fresh.ingest(docs, tenant=fresh_tenant)

    def scores(k: KnowledgeBase, tenant: str) -> list[tuple[str, float]]:
        return [(r.doc_id, round(r.score, 6))
                for r in k.search("refund policy warranty", tenant=tenant, k=20, mode="keyword")]
    assert scores(kb, "default") == scores(fresh, fresh_tenant)
    assert len(scores(kb, "default")) == 10


def test_reingest_skips_a_file_by_size_and_mtime_and_a_touched_file_by_its_hash(
    kb: KnowledgeBase, tmp_path: Path
) -> None:
    import os

    folder = write_folder(tmp_path / "docs")
    kb.ingest(folder)
    notes = folder / "notes.txt"
    before = notes.stat()
    # same size, same mtime, different bytes: the stat says unchanged, so the file is not even read
    notes.write_text(notes.read_text(encoding="utf-8").replace("9 to 17", "8 to 16"), encoding="utf-8")
    os.utime(notes, ns=(before.st_atime_ns, before.st_mtime_ns))
    report = kb.ingest(folder)
    assert report.updated == [] and report.chunks == 0 and "notes.txt" in report.unchanged
    assert "9 to 17" in kb.get_document("notes.txt")["text"]
    # a new mtime with the same bytes is recognised by its hash; new bytes are re-parsed
    os.utime(folder / "handbook.md")
    notes.write_text("Support hours\n\nNow from 7 to 15.\n", encoding="utf-8")
    report = kb.ingest(folder)
    assert report.updated == ["notes.txt"] and "handbook.md" in report.unchanged


def test_changed_chunking_settings_re_read_every_file(storage: Storage, embedder: Embedder,
                                                      tmp_path: Path) -> None:
    from lastline.kb import KBConfig

    folder = write_folder(tmp_path / "docs")
    KnowledgeBase(storage, embedder).ingest(folder)
    report = KnowledgeBase(storage, embedder, KBConfig(max_chars=300)).ingest(folder)
    assert "handbook.md" in report.updated
