"""``lastline kb …``: ingest folders into the knowledge base, search it, ask it.

The commands mirror :class:`lastline.kb.KnowledgeBase` (``ingest``, ``search``, ``answer``).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from .common import DbOption, JsonOption, emit, open_runtime

__all__ = ["app"]

app = typer.Typer(help="Offline knowledge base: ingest documents, search them, answer with citations.",
                  no_args_is_help=True)

TenantOption = Annotated[str, typer.Option("--tenant", help="Tenant that owns the documents.")]
CollectionOption = Annotated[str, typer.Option("--collection", help="Collection inside the tenant.")]


@app.command()
def ingest(
    path: Annotated[Path, typer.Argument(help="File or folder: md, html, pdf, docx, txt, FAQ csv/jsonl, corpus.jsonl")],
    tenant: TenantOption = "default",
    collection: CollectionOption = "default",
    sync: Annotated[bool, typer.Option("--sync", help="Remove documents whose files under PATH are gone.")] = False,
    defer_spaces: Annotated[bool, typer.Option(
        "--defer-spaces", help="Return once documents are searchable (keyword + default space); leave the "
        "English space to the service's background worker.")] = False,
    workers: Annotated[int, typer.Option(
        "--workers", min=0, help="Processes that encode (each loads the model); 0: one per core.")] = 0,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Ingest documents incrementally: unchanged files are skipped, changed ones replaced.

    Files that cannot be parsed are reported and skipped; the run goes on. Documents are searchable
    once their keyword rows and default-space vectors are in; the English space is filled after
    that (here, unless --defer-spaces; an interrupted fill resumes in `lastline serve` or the next run).

    Example: lastline kb ingest ./docs --collection handbook --sync
    """
    runtime = open_runtime(db)
    try:
        kb = runtime.kb
        bar = sys.stderr.isatty() and not as_json
        workers = workers or os.cpu_count() or 1
        report = _ingest_with_bar(kb, path, tenant, collection, sync, workers) if bar else kb.ingest(
            path, tenant=tenant, collection=collection, sync=sync, workers=workers)
        if not defer_spaces:
            if bar:
                _fill_with_bar(kb, workers)
            else:
                kb.fill_spaces(workers=workers)
    finally:
        runtime.close()
    if as_json:
        emit(report.to_dict(), True)
        return
    emit(report.summary(), False)
    if report.failed:
        base = path if path.is_dir() else path.parent
        table = Table("failed file", "reason")
        for source, reason in report.failed:
            table.add_row(os.path.relpath(source, base.resolve()), reason)
        Console().print(table)
    s = report.summary()
    typer.echo(f"{s['files']} files, {s['chunks']} chunks, {s['skipped']} skipped, {s['failed']} failed,"
               f" {s['seconds']:.1f} s")


def _ingest_with_bar(kb: Any, path: Path, tenant: str, collection: str, sync: bool, workers: int) -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.fields[stage]}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.description}"))
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("", total=None, stage="parse + index (keyword, default space)")

        def progress(done: int, total: int, current: str) -> None:
            bar.update(task, completed=done, total=total, description=Path(current).name if current else "")

        return kb.ingest(path, tenant=tenant, collection=collection, sync=sync, progress=progress,
                         workers=workers)


def _fill_with_bar(kb: Any, workers: int) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description} space"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        tasks: dict[str, Any] = {}

        def progress(name: str, done: int, total: int) -> None:
            if name not in tasks:
                tasks[name] = bar.add_task(name, total=total)
            bar.update(tasks[name], completed=done, total=total)

        kb.fill_spaces(progress, workers=workers)


@app.command()
def status(
    tenant: TenantOption = "default",
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Documents, chunks and each vector space's progress (vectors, pending, ready).

    Example: lastline kb status --json
    """
    runtime = open_runtime(db)
    try:
        found = runtime.kb.status(tenant=tenant)
    finally:
        runtime.close()
    if as_json:
        emit(found, True)
        return
    emit({"documents": found["documents"], "chunks (all tenants)": found["chunks"]}, False)
    table = Table("space", "model", "vectors", "pending", "ready")
    for space in found["spaces"]:
        table.add_row(space["name"], space["model"], str(space["vectors"]), str(space["pending"]),
                      "yes" if space["ready"] else "filling" if space["filling"] else "no")
    Console().print(table)


def _filters(collection: str | None, tags: list[str] | None) -> dict[str, Any] | None:
    filters: dict[str, Any] = {}
    if collection:
        filters["collection"] = collection
    if tags:
        filters["tags"] = tags
    return filters or None


@app.command()
def search(
    query: Annotated[str, typer.Argument(help="What to look for (any text; it is never FTS5 syntax).")],
    k: Annotated[int, typer.Option("-k", "--k", help="How many chunks to return.", min=1, max=1000)] = 5,
    mode: Annotated[str, typer.Option("--mode", help="hybrid, keyword or vector.")] = "hybrid",
    tenant: TenantOption = "default",
    collection: Annotated[str | None, typer.Option("--collection", help="Only this collection.")] = None,
    tag: Annotated[list[str] | None, typer.Option("--tag", help="Only documents with this tag (repeatable).")] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Search the knowledge base (FTS5 BM25 + vector kNN, fused by reciprocal rank).

    Example: lastline kb search "how do I calibrate the cache" --json
    """
    runtime = open_runtime(db)
    try:
        results = runtime.kb.search(query, tenant=tenant, k=k, mode=mode,  # type: ignore[arg-type]
                                    filters=_filters(collection, tag))
    finally:
        runtime.close()
    if as_json:
        emit({"results": [r.to_dict() for r in results]}, True)
        return
    table = Table("score", "document", "heading", "text")
    for r in results:
        table.add_row(f"{r.score:.4f}", r.doc_id, " > ".join(r.heading), r.text[:160].replace("\n", " "))
    Console().print(table)


@app.command()
def answer(
    query: Annotated[str, typer.Argument(help="The question.")],
    tenant: TenantOption = "default",
    collection: Annotated[str | None, typer.Option("--collection", help="Only this collection.")] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Answer from the knowledge base without an LLM: an FAQ answer or cited passages, or nothing.

    Exits with code 1 when nothing in the knowledge base answers well enough.

    Example: lastline kb answer "什么是降级阶梯？" --json
    """
    runtime = open_runtime(db)
    try:
        found = runtime.kb.answer(query, tenant=tenant, filters=_filters(collection, None))
    finally:
        runtime.close()
    if found is None:
        if as_json:
            emit({"answer": None, "error": "no_answer"}, True)
        else:
            typer.echo("no answer in the knowledge base", err=True)
        raise typer.Exit(1)
    if as_json:
        emit(found.model_dump(mode="json"), True)
        return
    typer.echo(found.answer or "")
    for citation in found.citations:
        typer.echo(f"  [{found.confidence.value}] {citation.doc_id} {citation.heading or ''} {citation.span}")
