"""The dashboard, rendered by headless Chromium against a real server, shows the cache's own hit rate."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import LiveServer, start_server, stop_server


@pytest.fixture(scope="module")
def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        message = "headless Chromium not found: `make sysdeps` (apt-get install chromium) installs it"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return path


@pytest.fixture(scope="module")
def busy_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server with some traffic: 2 exact hits, 1 semantic hit, 3 misses (one answered by a default), a refusal."""
    server = start_server(tmp_path_factory.mktemp("dashboard"))
    post = lambda path, body: httpx.post(server.url(path), json=body)  # noqa: E731
    post("/v1/cache/entries", {"prompt": "How do I reset my password?", "response": "Use the reset link."})
    post("/v1/cache/entries", {"prompt": "What are your opening hours?", "response": "9 to 5."})
    httpx.put(server.url("/v1/defaults/shipping"), json={"answer": "2-5 days"}).raise_for_status()
    post("/v1/fallback", {"prompt": "how do i reset my password", "reason": "upstream_timeout"})
    post("/v1/fallback", {"prompt": "What are your opening hours?", "reason": "rate_limited"})
    post("/v1/fallback", {"prompt": "I forgot my password, how do I reset it?", "threshold": 0.85})
    post("/v1/fallback", {"prompt": "quantum chromodynamics lecture notes"})
    post("/v1/cache/lookup", {"prompt": "completely unrelated words"})
    post("/v1/fallback", {"prompt": "when does it ship", "task": "shipping"})
    post("/v1/fallback", {"prompt": "pay invoice 9", "operation": "write", "idempotency_key": "i-9"})
    yield server
    stop_server(server)


def _chromium(binary: str, tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [
        binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
        f"--user-data-dir={tmp / 'chromium-profile'}",
        # Let the page's fetch() calls finish before the DOM is dumped or the picture taken.
        "--virtual-time-budget=10000", *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def test_dashboard_hit_rate_matches_cache_stats(chromium: str, busy_server: LiveServer, tmp_path: Path) -> None:
    url = busy_server.url("/dashboard")
    dom = _chromium(chromium, tmp_path, "--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'data-state="loaded"' in dom.stdout, dom.stdout[:3000]

    shown = re.search(r'id="hit-rate" data-value="([^"]*)">([^<]*)<', dom.stdout)
    assert shown, dom.stdout[:3000]
    stats = httpx.get(busy_server.url("/v1/cache/stats"), params={"window_s": 3600}).json()
    assert stats["lookups"] == 6 and stats["hits_total"] == 3  # the write was never looked up
    assert float(shown.group(1)) == pytest.approx(stats["hit_rate"])
    assert shown.group(2) == f"{100 * stats['hit_rate']:.1f}%"  # the number a person reads: 50.0%

    # Hits by layer, answers by source/confidence and recent events are on the page too.
    assert re.search(r"<span>exact</span>.*?<span>2</span>", dom.stdout, re.S)
    assert "cache / high" in dom.stdout and "default / low" in dom.stdout
    assert "upstream_timeout" in dom.stdout and "guard:write" in dom.stdout

    shot = tmp_path / "dashboard.png"
    pic = _chromium(chromium, tmp_path, f"--screenshot={shot}", "--window-size=1280,1000", url)
    assert pic.returncode == 0, pic.stderr[-2000:]
    assert shot.stat().st_size > 10_000
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_dashboard_report_endpoint_series_adds_up(busy_server: LiveServer) -> None:
    report = httpx.get(busy_server.url("/v1/reports/hit-rate"), params={"window": 3600, "buckets": 12}).json()
    assert report["lookups"] == sum(p["lookups"] for p in report["series"])
    assert report["hits"] == sum(p["hits"] for p in report["series"])
    assert report["hits_by_layer"]["exact"] == 2
    assert sum(report["misses_by_reason"].values()) == report["lookups"] - report["hits"]
    assert report["events_by_tier"]["refused"] == 1


def test_dashboard_on_a_multi_tenant_server_uses_the_key_from_the_fragment(
    chromium: str, tenant_server: LiveServer, tmp_path: Path
) -> None:
    dom = _chromium(chromium, tmp_path, "--dump-dom", tenant_server.url("/dashboard#key=key-b"))
    assert 'data-state="loaded"' in dom.stdout, dom.stdout[:3000]
    assert '<b id="tenant">globex</b>' in dom.stdout
    without = _chromium(chromium, tmp_path, "--dump-dom", tenant_server.url("/dashboard"))
    assert 'data-state="error"' in without.stdout and "401" in without.stdout
