"""What a newcomer meets first: the landing page, the prompt limit's wording, the sample traffic, doc links."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import httpx
from conftest import LiveServer

from lastline import __version__
from lastline.settings import DEFAULT_MAX_PROMPT_CHARS

ROOT = Path(__file__).resolve().parent.parent


def test_the_landing_page_links_the_dashboard_docs_metrics_and_names_the_version(live_server: LiveServer) -> None:
    got = httpx.get(live_server.url("/"))
    assert got.status_code == 200 and got.headers["content-type"].startswith("text/html")
    for link in ("/dashboard", "/docs", "/metrics"):
        assert f'href="{link}"' in got.text
        assert httpx.get(live_server.url(link)).status_code == 200
    assert __version__ in got.text


def test_a_2mb_prompt_is_refused_naming_max_prompt_chars(live_server: LiveServer) -> None:
    prompt = "x" * 2_000_000
    limit = f"max_prompt_chars ({DEFAULT_MAX_PROMPT_CHARS:,})"
    for path, body in (
        ("/v1/fallback", {"prompt": prompt}),
        ("/v1/cache/lookup", {"prompt": prompt}),
        ("/v1/cache/entries", {"prompt": prompt, "response": "r"}),
    ):
        got = httpx.post(live_server.url(path), json=body, timeout=30)
        assert got.status_code == 422, (path, got.text)
        assert limit in got.json()["detail"], (path, got.json())
        assert "1000000" not in got.text and "1,000,000" not in got.text
    chat = httpx.post(live_server.url("/v1/chat/completions"), timeout=30,
                      json={"model": "lastline", "messages": [{"role": "user", "content": prompt}]})
    assert chat.status_code in (400, 422) and limit in chat.json()["error"]["message"]


def test_the_sample_traffic_file_replays(tmp_path: Path) -> None:
    sample = ROOT / "data" / "traffic" / "sample.jsonl"
    result = subprocess.run([sys.executable, "-m", "lastline.api", "cache", "replay", str(sample), "--json",
                             "--db", str(tmp_path / "r.db")], capture_output=True, text=True, cwd=tmp_path,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["lookups"] == len(sample.read_text(encoding="utf-8").splitlines())
    assert report["hits_by_layer"]["exact"] >= 1 and report["hits_by_layer"]["fuzzy"] >= 1
    assert report["wrong_hits"] == 0  # "Refund order 456" is not served order 123's answer


def test_every_relative_link_in_the_docs_resolves() -> None:
    broken = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} → {target}")
    assert not broken, broken
