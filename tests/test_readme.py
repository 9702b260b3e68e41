"""The README's promises: its curl tour runs against a real server, and `make run` serves /healthz."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import ROOT, LiveServer, start_server, stop_server

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _tour_commands() -> list[list[str]]:
    """The curl commands of the README's tour, continuation lines joined, comments dropped."""
    section = README.split("## A 30-second tour", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, "the tour has no bash block"
    text = block.group(1).replace("\\\n", " ")
    return [shlex.split(line) for line in text.splitlines() if line.strip().startswith("curl")]


def _send(server: LiveServer, argv: list[str]) -> httpx.Response:
    """Run one curl command line with httpx: -d is a POST body, -H a header, the URL is rebased."""
    headers: dict[str, str] = {}
    body: str | None = None
    url = ""
    args = iter(argv[1:])
    for arg in args:
        if arg == "-H":
            name, _, value = next(args).partition(":")
            headers[name.strip()] = value.strip()
        elif arg == "-d":
            body = next(args)
        elif not arg.startswith("-"):
            url = arg
    path = "/" + url.split("/", 1)[1]
    method = "POST" if body is not None else "GET"
    return httpx.request(method, server.url(path), headers=headers, content=body, timeout=30)


@pytest.fixture(scope="module")
def demo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The service as `make run` starts it: the demo folder seeds the knowledge base."""
    server = start_server(tmp_path_factory.mktemp("readme"), {"LASTLINE_KB_SEED": str(ROOT / "data" / "demo")})
    yield server
    stop_server(server)


def test_readme_starts_with_exactly_the_two_commands() -> None:
    first_block = re.search(r"```bash\n(.*?)```", README, re.S)
    assert first_block
    commands = [ln.split("#")[0].strip() for ln in first_block.group(1).splitlines() if ln.strip()]
    assert commands == ["make run", "make test"]


def test_every_tour_command_works_against_a_real_server(demo_server: LiveServer) -> None:
    commands = _tour_commands()
    assert len(commands) >= 5
    responses = [_send(demo_server, argv) for argv in commands]
    for argv, response in zip(commands, responses, strict=True):
        body = next((argv[i + 1] for i, a in enumerate(argv) if a == "-d"), "{}")
        if json.loads(body).get("operation") == "write":
            assert response.status_code == 409
            assert response.json()["error"] == "no_degraded_writes"
            assert response.json()["idempotency_key"] == "k-1"
        else:
            assert response.status_code < 300, (argv, response.text)


def test_tour_paraphrase_lookup_hits_the_stored_answer(demo_server: LiveServer) -> None:
    commands = _tour_commands()
    put = next(c for c in commands if "/v1/cache/entries" in " ".join(c))
    lookup = next(c for c in commands if "/v1/cache/lookup" in " ".join(c))
    _send(demo_server, put)
    result = _send(demo_server, lookup).json()
    assert result["hit"] is True
    assert result["answer"].startswith("Settings")
    assert result["layer"] == "exact"


def test_tour_chat_writeback_then_a_paraphrase_under_a_system_prompt_is_a_semantic_hit(
    demo_server: LiveServer,
) -> None:
    commands = _tour_commands()
    writeback = next(c for c in commands if "/v1/chat/completions/writeback" in " ".join(c))
    ask = next(c for c in commands if " ".join(c).split()[2].endswith("/v1/chat/completions"))
    assert _send(demo_server, writeback).status_code == 201
    got = _send(demo_server, ask)
    assert got.status_code == 200, got.text
    envelope = got.json()["lastline"]
    assert envelope["source"] == "cache" and envelope["layer"] == "semantic"
    assert envelope["confidence"] == "high"  # a fresh entry above the threshold
    assert round(envelope["similarity"], 3) == 0.977  # the figure the README states
    assert got.json()["choices"][0]["message"]["content"] == "Open Settings → Security → Reset password."


def test_readme_replays_the_sample_traffic_file() -> None:
    assert "lastline cache replay data/traffic/sample.jsonl" in README
    assert (ROOT / "data" / "traffic" / "sample.jsonl").is_file()


def test_tour_fallback_is_answered_from_the_demo_knowledge_base(demo_server: LiveServer) -> None:
    command = next(c for c in _tour_commands() if "/v1/fallback" in " ".join(c) and "write" not in " ".join(c))
    answer = _send(demo_server, command).json()
    assert answer["source"] == "kb"
    assert answer["citations"]
    assert "知识库" in answer["notice"]


def test_makefile_run_target_serves_the_demo_folder() -> None:
    makefile = (ROOT / "Makefile").read_text()
    run_recipe = makefile.split("\nrun:", 1)[1].split("\n\n", 1)[0]
    assert "lastline serve" in run_recipe
    assert "data/demo" in run_recipe
    assert Path(ROOT / "data" / "demo").is_dir()


def test_make_run_serves_healthz_on_loopback(tmp_path: Path) -> None:
    """The README's first command, as written (the venv `make test` built is reused)."""
    import os
    import signal
    import socket
    import subprocess
    import time

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "LASTLINE_PORT": str(port), "LASTLINE_DB": str(tmp_path / "run.db")}
    log = (tmp_path / "make-run.log").open("wb")
    process = subprocess.Popen(["make", "-s", "run"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                               start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        status = None
        while time.monotonic() < deadline and process.poll() is None:
            try:
                status = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        assert status == 200, (tmp_path / "make-run.log").read_text()
        answer = httpx.post(f"http://127.0.0.1:{port}/v1/kb/search", json={"query": "fallback ladder"}, timeout=30)
        assert answer.json()["results"], "the demo knowledge base was not seeded"
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)
        log.close()
