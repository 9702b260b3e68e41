"""``/v1/kb/*``: the knowledge base over HTTP (add documents as JSON or file uploads, search, get, delete).

Thin on purpose: parsing, chunking, indexing and ranking live in :class:`lastline.kb.KnowledgeBase`.
Endpoints are sync functions (FastAPI's thread pool) except the upload, which reads the form
asynchronously and hands the bytes to a worker thread.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import Path, Request, status
from fastapi.responses import Response
from pydantic import BaseModel, Field, ValidationError
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile

from lastline import InvalidInput, NotFound
from lastline.kb import DEFAULT_K, MAX_QUERY_CHARS, SearchResult

from ..deps import RuntimeDep, StrictBody, TenantDep
from ..direct_route import direct_post
from ..prefixed_router import PrefixedRouter
from ..threads import in_thread

__all__ = ["router"]

router = PrefixedRouter(prefix="/v1/kb", tags=["kb"])

DocIdPath = Annotated[str, Path(min_length=1, max_length=500)]
Name = Annotated[str, Field(min_length=1, max_length=200)]

MAX_DOCUMENT_CHARS = 5_000_000
#: The HTTP face's own cap on ``k``, tighter than the KB's ``MAX_K``: one answer stays a few hundred kB.
MAX_SEARCH_K = 100
_ERRORS: dict[int | str, dict[str, str]] = {
    401: {"description": "Missing or unknown API key."},
    413: {"description": "Body too large."},
    422: {"description": "invalid_input: a field is wrong, or an uploaded file cannot be parsed."},
}


class DocumentIn(StrictBody):
    id: str | None = Field(None, min_length=1, max_length=500, description="Stable id; same id replaces.")
    title: str = Field("", max_length=1000)
    text: str = Field(min_length=1, max_length=MAX_DOCUMENT_CHARS)
    source: str | None = Field(None, max_length=2000, description="Where it came from; '.md' enables headings.")
    metadata: dict[str, Any] | None = None
    tags: list[Name] = Field(default_factory=list, max_length=64)
    collection: Name = "default"


class DocumentOut(BaseModel):
    id: str
    chunks: int
    documents: list[dict[str, Any]] | None = Field(None, description="For an FAQ/corpus upload: every document.")


class SearchIn(StrictBody):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    k: int = Field(DEFAULT_K, ge=1, le=MAX_SEARCH_K)
    filters: dict[str, Any] | None = Field(None, description="collection (str|list), tags (all), doc_ids, metadata.")
    mode: Literal["hybrid", "keyword", "vector"] = "hybrid"


class SearchOut(BaseModel):
    results: list[SearchResult]


_UPLOAD_DOC = {
    "requestBody": {
        "content": {
            "application/json": {"schema": DocumentIn.model_json_schema()},
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["file"],
                    "properties": {
                        "file": {"type": "string", "format": "binary"},
                        "collection": {"type": "string"},
                    },
                }
            },
        },
        "required": True,
    }
}


@direct_post(router, "/search", response_model=SearchOut, responses=_ERRORS)
async def search(body: SearchIn, runtime: RuntimeDep, tenant: TenantDep) -> SearchOut:
    """Hybrid search (FTS5 BM25 + vector kNN, reciprocal rank fusion) inside the caller's tenant.

    It runs in the KB's own process, at a lower CPU priority than the cache lookups, and waits for it
    on one of the ``kb`` bulkhead's threads (the slot was taken at the door): of a flood of searches
    at most that many run at once, up to ``LASTLINE_QUEUE_KB`` more wait in the bulkhead's line, and
    the rest are refused (docs/reliability.md, "The KB's line" and "The KB's own process").
    """
    results = await in_thread(runtime.kb_searches.search, body.query, tenant=tenant, k=body.k, filters=body.filters,
                              mode=body.mode, executor=runtime.bulkheads["kb"].executor())
    return SearchOut(results=results)


@router.post("/documents", status_code=status.HTTP_201_CREATED, response_model=DocumentOut,
             responses=_ERRORS, openapi_extra=_UPLOAD_DOC)
async def add_document(request: Request, runtime: RuntimeDep, tenant: TenantDep) -> DocumentOut:
    """Add or replace a document: JSON ``{id?, title, text, source, metadata}`` or a multipart ``file``.

    Files are parsed by extension (md, html, pdf, docx, txt, FAQ csv/jsonl, BEIR jsonl).
    """
    kb = await run_in_threadpool(lambda: runtime.kb)
    if request.headers.get("content-type", "").startswith("multipart/form-data"):
        form = await request.form()
        upload = form.get("file")
        if not isinstance(upload, UploadFile) or not upload.filename:
            raise InvalidInput("file: send the document as a multipart field named 'file' with a filename")
        collection = str(form.get("collection") or "default")
        data = await upload.read()
        done = await run_in_threadpool(kb.add_file, upload.filename, data, tenant=tenant, collection=collection)
        return DocumentOut(id=done[0][0], chunks=sum(n for _, n in done),
                           documents=[{"id": d, "chunks": n} for d, n in done] if len(done) > 1 else None)
    try:  # pydantic's JSON parser: bounded nesting depth, UTF-8 checked, one error type for all
        body = DocumentIn.model_validate_json(await request.body())
    except ValidationError as exc:
        err = exc.errors()[0]
        if err["type"] == "json_invalid":
            raise InvalidInput(f"body: not JSON ({err['ctx'].get('error', err['msg']) if 'ctx' in err else err['msg']})"
                               ) from exc
        where = ".".join(str(p) for p in err["loc"]) or "body"
        raise InvalidInput(f"{where}: {err['msg']}") from exc
    doc_id, chunks = await run_in_threadpool(
        lambda: kb.add_document(tenant=tenant, title=body.title, text=body.text, source=body.source,
                                metadata=body.metadata, doc_id=body.id, collection=body.collection, tags=body.tags)
    )
    return DocumentOut(id=doc_id, chunks=chunks, documents=None)


class SpaceStatus(BaseModel):
    name: str
    model: str
    vectors: int
    pending: int = Field(description="Chunks this space should hold but has no vector for yet.")
    ready: bool = Field(description="Searched only when ready; a background space fills after ingest.")
    background: bool
    filling: bool
    error: str | None


class KeywordIndexStatus(BaseModel):
    enabled: bool = Field(description="Whether this process keeps in-memory keyword indexes at all.")
    threshold: int | None = Field(None, description="Chunks from which a tenant gets one.")
    built: bool = Field(False, description="The caller's tenant is searched from this process's index.")
    building: bool = False
    chunks: int = Field(0, description="Live chunks the index holds.")
    appended: int = Field(0, description="Chunks added since it was built (written after its snapshot).")
    dead: int = Field(0, description="Deleted chunks it has tombstoned since it was built.")


class StatusOut(BaseModel):
    documents: int | None = Field(description="The caller's tenant.")
    chunks: int = Field(description="All tenants.")
    spaces: list[SpaceStatus]
    keyword_index: KeywordIndexStatus | None = Field(
        None, description="The caller's tenant's in-memory BM25 index in this process (the store answers without).")


@router.get("/status", response_model=StatusOut, responses={401: _ERRORS[401]})
def kb_status(runtime: RuntimeDep, tenant: TenantDep) -> StatusOut:
    """Documents of the caller's tenant and each vector space's fill progress (vectors, pending, ready)."""
    return StatusOut.model_validate(runtime.kb.status(tenant=tenant))


@router.get("/documents/{doc_id:path}", responses={404: {"description": "No such document."}})
def get_document(doc_id: DocIdPath, runtime: RuntimeDep, tenant: TenantDep) -> dict[str, Any]:
    """One document with its full text, metadata, tags and chunk count."""
    found = runtime.kb.get_document(doc_id, tenant=tenant)
    if found is None:
        raise NotFound(f"no document {doc_id!r}")
    return found


@router.delete("/documents/{doc_id:path}", status_code=status.HTTP_204_NO_CONTENT,
               responses={404: {"description": "No such document."}})
def delete_document(doc_id: DocIdPath, runtime: RuntimeDep, tenant: TenantDep) -> Response:
    """Delete a document and its chunks, FTS rows and vectors."""
    if not runtime.kb.delete_document(doc_id, tenant=tenant):
        raise NotFound(f"no document {doc_id!r}")
    return Response(status_code=status.HTTP_204_NO_CONTENT)
