"""``/v1/kb/*`` against a real ``lastline serve``: seeded demo, JSON and file uploads, search, tenants."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from _kb_files import FAQ_CSV, make_pdf
from conftest import LiveServer, server_database, start_server, stop_server

DEMO = Path(__file__).resolve().parents[1] / "data" / "demo"
A = {"Authorization": "Bearer key-a"}
B = {"Authorization": "Bearer key-b"}

pytestmark = pytest.mark.backends("sqlite", "postgresql")


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
           backend: str) -> Iterator[LiveServer]:
    """Own server (its KB content must not leak into other tests' ladders): two tenants, demo seed."""
    env = {**server_database(request, backend), "LASTLINE_API_KEYS": '{"key-a": "acme", "key-b": "globex"}',
           "LASTLINE_KB_SEED": str(DEMO)}
    srv = start_server(tmp_path_factory.mktemp("kb_http"), env)
    yield srv
    stop_server(srv)


def _wait_until_ready(server: LiveServer, timeout_s: float = 120.0) -> dict[str, object]:
    import time

    deadline = time.monotonic() + timeout_s
    while True:
        status = httpx.get(server.url("/v1/kb/status"), headers=A).json()
        if all(space["ready"] for space in status["spaces"]) or time.monotonic() > deadline:
            return dict(status)
        time.sleep(0.2)


def test_status_names_each_space_and_the_english_one_fills_in_the_background(server: LiveServer) -> None:
    status = _wait_until_ready(server)
    spaces = {space["name"]: space for space in status["spaces"]}
    assert set(spaces) == {"vector", "english"} and status["documents"] and status["chunks"]
    assert spaces["english"]["background"] and not spaces["vector"]["background"]
    assert spaces["english"]["ready"] and spaces["english"]["pending"] == 0 and spaces["english"]["vectors"] > 0
    assert httpx.get(server.url("/v1/kb/status")).status_code == 401


def test_first_start_seeds_every_tenant_from_kb_seed(server: LiveServer) -> None:
    for headers in (A, B):
        r = httpx.post(server.url("/v1/kb/search"), json={"query": "什么是降级阶梯", "k": 3}, headers=headers)
        assert r.status_code == 200
        assert r.json()["results"][0]["doc_id"].startswith(("faq.csv#", "fallback-ladder.md"))
    r = httpx.post(server.url("/v1/fallback"), json={"prompt": "What is lastline?"}, headers=A)
    assert r.status_code == 200 and r.json()["source"] == "kb" and r.json()["citations"]


def test_json_document_is_added_searched_fetched_and_deleted(server: LiveServer) -> None:
    body = {"id": "policy-1", "title": "Travel policy", "text": "# Travel\n\n## Hotels\n\nHotels up to 150 euros.",
            "source": "policy.md", "metadata": {"owner": "hr"}}
    r = httpx.post(server.url("/v1/kb/documents"), json=body, headers=A)
    assert r.status_code == 201 and r.json() == {"id": "policy-1", "chunks": 1, "documents": None}
    r = httpx.post(server.url("/v1/kb/search"), json={"query": "hotel price limit", "k": 1,
                                                      "filters": {"metadata": {"owner": "hr"}}}, headers=A)
    [hit] = r.json()["results"]
    assert hit["doc_id"] == "policy-1" and hit["heading"] == ["Travel", "Hotels"]
    assert {"doc_id", "chunk_id", "title", "text", "score", "source", "span"} <= set(hit)
    # the English space fills in the background; once status says ready, English queries search it too
    _wait_until_ready(server)
    r = httpx.post(server.url("/v1/kb/search"), json={"query": "hotel price limit", "k": 1,
                                                      "filters": {"metadata": {"owner": "hr"}}}, headers=A)
    [hit] = r.json()["results"]
    # an English chunk is in the English space too: the response says where each list ranked it
    assert hit["english_rank"] == 1 and hit["vector_rank"] == 1 and hit["english_similarity"] > 0
    assert hit["keyword_rank"] in (None, 1)
    assert body["text"][hit["span"][0] : hit["span"][1]] == hit["text"]
    assert httpx.get(server.url("/v1/kb/documents/policy-1"), headers=A).json()["metadata"] == {"owner": "hr"}
    assert httpx.get(server.url("/v1/kb/documents/policy-1"), headers=B).status_code == 404
    assert httpx.delete(server.url("/v1/kb/documents/policy-1"), headers=B).status_code == 404
    assert httpx.delete(server.url("/v1/kb/documents/policy-1"), headers=A).status_code == 204
    assert httpx.get(server.url("/v1/kb/documents/policy-1"), headers=A).status_code == 404


def test_file_uploads_are_parsed_by_type(server: LiveServer, tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "w.pdf", [["Every device has a two year warranty."]]).read_bytes()
    r = httpx.post(server.url("/v1/kb/documents"), files={"file": ("warranty.pdf", pdf, "application/pdf")},
                   data={"collection": "manuals"}, headers=A)
    assert r.status_code == 201 and r.json()["id"] == "warranty.pdf" and r.json()["chunks"] == 1
    r = httpx.post(server.url("/v1/kb/documents"), files={"file": ("faq.csv", FAQ_CSV.encode(), "text/csv")},
                   headers=A)
    assert r.status_code == 201 and len(r.json()["documents"]) == 2
    r = httpx.post(server.url("/v1/kb/search"), json={"query": "warranty years", "k": 5,
                                                      "filters": {"collection": "manuals"}}, headers=A)
    assert [h["doc_id"] for h in r.json()["results"]] == ["warranty.pdf"]


def test_another_tenant_never_sees_uploaded_documents(server: LiveServer) -> None:
    httpx.post(server.url("/v1/kb/documents"), json={"title": "x", "text": "The globex vault code is 4711."},
               headers=B)
    r = httpx.post(server.url("/v1/kb/search"), json={"query": "globex vault code 4711", "k": 50}, headers=A)
    assert all("4711" not in h["text"] for h in r.json()["results"])


@pytest.mark.parametrize(
    ("body", "field"),
    [({"query": "", "k": 3}, "query"), ({"query": "x", "k": 0}, "k"), ({"query": "x", "filters": {"bad": 1}}, "bad"),
     ({"query": "x", "mode": "magic"}, "mode")],
)
def test_bad_search_requests_are_422_with_error_and_detail(server: LiveServer, body: dict, field: str) -> None:
    r = httpx.post(server.url("/v1/kb/search"), json=body, headers=A)
    assert r.status_code == 422 and {"error", "detail"} <= set(r.json()) and field in str(r.json())


def test_bad_uploads_are_422_and_missing_key_is_401(server: LiveServer) -> None:
    r = httpx.post(server.url("/v1/kb/documents"), files={"file": ("x.pdf", b"junk", "application/pdf")}, headers=A)
    assert r.status_code == 422 and r.json()["error"] == "invalid_input"
    r = httpx.post(server.url("/v1/kb/documents"), json={"title": "t", "text": ""}, headers=A)
    assert r.status_code == 422
    json_headers = {**A, "content-type": "application/json"}
    r = httpx.post(server.url("/v1/kb/documents"), content=b"{not json", headers=json_headers)
    assert r.status_code == 422
    assert httpx.post(server.url("/v1/kb/search"), json={"query": "x"}).status_code == 401
