"""Every example in docs/examples runs against a real server and prints lastline's answer (house rule 9)."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from _upstream import running_upstream

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"
DOC = ROOT / "docs" / "integrations.md"

#: What each example must print (its answer and its provenance).
EXPECTED = {
    "openai_sdk.py": ["We are open from 9:00 to 17:00", "source: cache confidence: high", "streamed: We are open"],
    "litellm_router.py": ["Use 'Forgot password'", "source: cache confidence: high", "header: cache"],
    "langchain_fallbacks.py": ["underground parking", "source: cache", "streamed: Yes, underground parking"],
    "langchain_cache.py": ["Check-in opens 24 hours before departure.\nCheck-in opens 24 hours",
                           "layer: exact source: cache"],
    "python_client.py": ["30 days from delivery. | cache high depth 0", "refused write, key: refund-1234",
                         "no fallback answer", "written back:"],
    "chat_writeback.py": ["stored under context chat:", "Yes, outside rush hours.", "source: cache"],
    "litellm_writeback.py": ["upstream: Upstream says: Is the pool open in winter?",
                             "lastline: Upstream says: Is the pool open in winter?", "source: cache"],
    "portkey_gateway.py": ["Yes, free of charge up to 24 hours", "source: cache target: config.targets[1]"],
}
#: The open-source Portkey gateway, installed by `make test` (npm); its example needs it running.
PORTKEY_JS = ROOT / ".venv" / "portkey" / "node_modules" / "@portkey-ai" / "gateway" / "build" / "start-server.js"


@pytest.fixture(scope="module")
def portkey_url() -> Iterator[str]:
    """A real Portkey gateway on a free loopback port (skips when node or the gateway is missing)."""
    node = shutil.which("node")
    if node is None or not PORTKEY_JS.is_file():
        pytest.skip(f"Portkey gateway not installed at {PORTKEY_JS} (make test installs it with npm)")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen([node, str(PORTKEY_JS), f"--port={port}", "--headless"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(f"http://127.0.0.1:{port}/", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.2)
        else:
            pytest.fail("Portkey gateway did not start")
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_every_example_is_documented_and_tested() -> None:
    """The integration examples (docs/examples holds other pages' examples too) are all shown."""
    files = {p.name for p in EXAMPLES.glob("*.py")}
    assert set(EXPECTED) <= files
    doc = DOC.read_text()
    for name in EXPECTED:
        assert f"docs/examples/{name}" in doc, f"{name} is not shown in docs/integrations.md"


def test_documented_code_blocks_are_the_example_files() -> None:
    """Each ```python block in the doc that names an example file is that file's text, verbatim."""
    doc = DOC.read_text()
    blocks = re.findall(r"<!-- example: (\S+) -->\n```python\n(.*?)```", doc, flags=re.S)
    assert {name for name, _ in blocks} == set(EXPECTED)
    for name, code in blocks:
        assert code == (EXAMPLES / name).read_text(), f"docs/integrations.md is out of date for {name}"


def run_example(name: str, **env: str) -> None:
    full_env = {**os.environ, **env, "PYTHONWARNINGS": "ignore"}
    full_env.pop("LASTLINE_API_KEY", None)
    result = subprocess.run(
        [sys.executable, str(EXAMPLES / name)], env=full_env, capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr[-3000:]
    for expected in EXPECTED[name]:
        assert expected in result.stdout, f"{expected!r} not in:\n{result.stdout}"


@pytest.mark.parametrize("name", sorted(set(EXPECTED) - {"portkey_gateway.py", "litellm_writeback.py"}))
def test_example_runs_and_prints_lastline_answer(live_server: Any, name: str) -> None:
    run_example(name, LASTLINE_URL=live_server.base_url)


def test_litellm_writeback_example_fills_lastline_from_a_working_upstream(live_server: Any) -> None:
    with running_upstream() as upstream:
        run_example("litellm_writeback.py", LASTLINE_URL=live_server.base_url, UPSTREAM_URL=upstream)


def test_portkey_fallback_config_reaches_lastline_through_the_real_gateway(live_server: Any, portkey_url: str) -> None:
    run_example("portkey_gateway.py", LASTLINE_URL=live_server.base_url, PORTKEY_URL=portkey_url)
