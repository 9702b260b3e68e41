"""Hostile input on a real server: each gets a clear 4xx (or a normal answer), never a 5xx or a hang.

The kinds the flood minute brings on top of schemathesis' generated bodies: JSON nested thousands
deep and JSON with a hundred thousand keys, bytes that are not UTF-8, megabyte runs of one Unicode
character (combining marks, zero-width joiners, right-to-left overrides, astral emoji), search-engine
operators in KB queries, path traversal in uploaded file names and document ids. Every request has a
client timeout, so a hang fails the test instead of stalling the suite.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from urllib.parse import quote

import httpx
import pytest
from conftest import LiveServer, start_server, stop_server
from hypothesis import given
from hypothesis import strategies as st

from lastline.kb._kb import upload_name

TIMEOUT_S = 30.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    srv = start_server(tmp_path_factory.mktemp("hostile"), {"LASTLINE_MAX_BODY_BYTES": str(4_000_000)})
    doc = {"title": "Refunds", "text": "Refunds are paid within 5 days. NEAR the end of the month, OR later."}
    assert post(srv, "/v1/kb/documents", json.dumps(doc).encode()).status_code == 201
    yield srv
    stop_server(srv)


def post(server: LiveServer, path: str, content: bytes, content_type: str = "application/json") -> httpx.Response:
    return httpx.post(server.url(path), content=content, headers={"content-type": content_type}, timeout=TIMEOUT_S)


def assert_clear_4xx(response: httpx.Response, *statuses: int) -> dict[str, str]:
    assert response.status_code in statuses, (response.status_code, response.text[:300])
    body = response.json()
    assert isinstance(body["error"], str) and isinstance(body["detail"], str) and body["detail"], body
    return body


ROUTES = ["/v1/cache/lookup", "/v1/cache/entries", "/v1/fallback", "/v1/kb/search", "/v1/rules/entities",
          "/v1/kb/documents"]


@pytest.mark.parametrize("path", ROUTES)
def test_json_nested_thousands_deep_is_a_4xx(server: LiveServer, path: str) -> None:
    deep = b'{"prompt": ' + b"[" * 50_000 + b"]" * 50_000 + b"}"
    assert_clear_4xx(post(server, path, deep), 400, 422)


@pytest.mark.parametrize("path", ROUTES)
def test_json_with_a_hundred_thousand_keys_is_a_4xx(server: LiveServer, path: str) -> None:
    wide = json.dumps({f"k{i}": i for i in range(100_000)}).encode()
    assert_clear_4xx(post(server, path, wide), 400, 422)


def test_extra_metadata_a_hundred_thousand_wide_is_refused_by_name(server: LiveServer) -> None:
    body = {"prompt": "wide metadata", "response": "r", "metadata": {f"k{i}": i for i in range(100_000)}}
    response = post(server, "/v1/cache/entries", json.dumps(body).encode())
    assert response.status_code in (201, 413, 422), response.text[:300]
    if response.status_code != 201:
        assert "metadata" in response.json()["detail"] or response.status_code == 413


@pytest.mark.parametrize("path", ROUTES)
@pytest.mark.parametrize("raw", [b'{"prompt": "caf\xe9"}', b'{"prompt": "\xff\xfe\x00"}', b'\xef\xbb\xbf{"prompt": 1'],
                         ids=["latin1", "bom-and-nul", "bom-truncated"])
def test_bytes_that_are_not_utf8_json_are_a_400(server: LiveServer, path: str, raw: bytes) -> None:
    assert_clear_4xx(post(server, path, raw), 400, 422)


@pytest.mark.parametrize("char", ["\u0301", "\u200d", "\u202e", "\U0001f600", "\ufeff", "\x00"],
                         ids=["combining", "zwj", "rtl-override", "emoji", "bom", "nul"])
def test_a_long_run_of_one_unicode_character_is_answered_or_refused_by_name(server: LiveServer, char: str) -> None:
    for path, field in [("/v1/cache/lookup", "prompt"), ("/v1/kb/search", "query"), ("/v1/rules/entities", "text")]:
        response = post(server, path, json.dumps({field: char * 40_000}).encode())
        if response.status_code == 422:
            assert "max_prompt_chars" in response.json()["detail"] or field in response.json()["detail"]
        else:
            assert response.status_code in (200, 404), (path, response.status_code, response.text[:300])
        short = post(server, path, json.dumps({field: "hello " + char * 200 + " 你好"}).encode())
        assert short.status_code in (200, 404), (path, short.status_code, short.text[:300])


@pytest.mark.parametrize("query", [
    '"unterminated', "a OR b AND NOT c", "NEAR(a b, 2)", "title:secret", "a* ^b", "(((", "')); DROP TABLE kb;--",
    "&|!:*()<->", "col:* OR *", "\\", "''", "a\u0000b", "-", "^", "{a b}",
])
def test_search_engine_operators_in_a_kb_query_are_plain_words(server: LiveServer, query: str) -> None:
    for mode in ("keyword", "hybrid"):
        response = post(server, "/v1/kb/search", json.dumps({"query": query, "mode": mode}).encode())
        assert response.status_code == 200, (query, mode, response.text[:300])
        assert isinstance(response.json()["results"], list)
    answer = post(server, "/v1/fallback", json.dumps({"prompt": query}).encode())
    assert answer.status_code in (200, 404), answer.text[:300]


@pytest.mark.parametrize("filename", ["../../../../etc/passwd.md", "/etc/passwd.md", "..\\..\\boot.ini.md",
                                      "a/../../b.md", "%2e%2e%2fx.md", "\u202egpj.md", "nul\u0000.md"])
def test_path_traversal_in_an_upload_name_never_leaves_the_database(server: LiveServer, filename: str) -> None:
    files = {"file": (filename, b"# Title\n\nA harmless body about refunds.\n", "text/markdown")}
    response = httpx.post(server.url("/v1/kb/documents"), files=files, timeout=TIMEOUT_S)
    if response.status_code == 201:
        doc_id = response.json()["id"]
        assert not {"/", "\\", "\x00", "\u202e"} & set(doc_id) and not doc_id.startswith(".."), doc_id
        stored = httpx.get(server.url(f"/v1/kb/documents/{quote(doc_id, safe='')}"), timeout=TIMEOUT_S)
        assert stored.status_code == 200 and "harmless" in stored.text
    else:
        assert_clear_4xx(response, 400, 415, 422)


@pytest.mark.parametrize("doc_id", ["../../etc/passwd", "..%2f..%2fetc%2fpasswd", "/absolute", "a/../../b"])
def test_path_like_document_ids_are_names_not_paths(server: LiveServer, doc_id: str) -> None:
    body = {"id": doc_id, "title": "t", "text": "a document whose id looks like a path"}
    created = post(server, "/v1/kb/documents", json.dumps(body).encode())
    assert created.status_code in (201, 422), created.text[:300]
    if created.status_code == 201:
        where = server.url(f"/v1/kb/documents/{quote(created.json()['id'], safe='')}")
        got = httpx.get(where, timeout=TIMEOUT_S)
        assert got.status_code == 200 and "looks like a path" in got.text
        gone = httpx.delete(where, timeout=TIMEOUT_S)
        assert gone.status_code == 204


def test_a_body_that_is_a_bare_json_scalar_or_array_is_a_422(server: LiveServer) -> None:
    for raw in (b"1", b'"text"', b"null", b"[]", b"[{}]", b"true"):
        for path in ROUTES:
            assert_clear_4xx(post(server, path, raw), 400, 422)


def test_the_server_still_answers_after_the_barrage(server: LiveServer) -> None:
    assert httpx.get(server.url("/readyz"), timeout=TIMEOUT_S).status_code == 200
    ok = post(server, "/v1/cache/entries", json.dumps({"prompt": "after the storm", "response": "calm"}).encode())
    assert ok.status_code == 201
    hit = post(server, "/v1/cache/lookup", json.dumps({"prompt": "after the storm"}).encode())
    assert hit.status_code == 200 and hit.json()["hit"] is True


@given(st.text(max_size=80))
def test_an_upload_name_is_one_printable_path_part(filename: str) -> None:
    name = upload_name(filename)
    assert name and name not in (".", "..") and "/" not in name and "\\" not in name
    assert all(ch.isprintable() for ch in name) and name == name.strip()
    assert upload_name(name) == name


def test_an_upload_name_keeps_the_file_name_of_any_client_path() -> None:
    assert upload_name("C:\\docs\\退款政策.md") == "退款政策.md"
    assert upload_name("../../etc/passwd.md") == "passwd.md"
    assert upload_name("..") == upload_name("") == "upload"
