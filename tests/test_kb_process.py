"""KB searches in a process of their own: the same answers, fresh, lower priority, and nothing lost when
it dies or is not there yet."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lastline import Embedder, InvalidInput, load_settings
from lastline.api import Runtime
from lastline.api.ladder.kb_process import KBSearchProcess

REFUNDS = "Refunds are paid back to the original card within five working days of the return."
PASSWORDS = "To reset your password, open Settings, choose Security and then Reset password."


def _alive(pid: int) -> bool:
    """Running (a zombie has ended: only its exit status is left to read)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def _until_ready(searches: KBSearchProcess, timeout_s: float = 90.0) -> int:
    """The child's pid once it has warmed (a spawn, the model and the KB loaded)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if searches.ready:
            pid = searches.pid()
            assert pid is not None
            return pid
        time.sleep(0.05)
    raise AssertionError("the KB's process did not become ready")


def _ran_in(runtime: Runtime, where: str) -> float:
    """KB calls counted as run in ``where`` (``process`` or ``worker``), from the runtime's metrics."""
    return runtime.metrics.value("lastline_kb_calls_total", ran_in=where)


def _open(db: Path) -> tuple[Runtime, KBSearchProcess]:
    runtime = Runtime.open(load_settings(db=db, kb_english_embedder="none"), background=True)
    searches = runtime.kb_searches
    assert isinstance(searches, KBSearchProcess)
    return runtime, searches


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[tuple[Runtime, KBSearchProcess]]:
    runtime, searches = _open(tmp_path_factory.mktemp("kbproc") / "kb.db")
    runtime.kb.add_document(title="Refunds", text=REFUNDS, doc_id="refunds")
    runtime.kb.warm(runtime.settings.tenants)  # as a server's start-up does: the process warms its own
    runtime.start_kb_process()
    _until_ready(searches)
    yield runtime, searches
    runtime.close()


def test_searches_and_answers_in_the_process_are_the_workers_own(served: tuple[Runtime, KBSearchProcess]) -> None:
    runtime, searches = served
    before = _ran_in(runtime, "process")
    found = searches.search("when do I get my refund", tenant="default", k=3)
    assert found == runtime.kb.search("when do I get my refund", tenant="default", k=3)
    assert found and found[0].doc_id == "refunds"
    answer = searches.answer("when do I get my refund", tenant="default")
    assert answer == runtime.kb.answer("when do I get my refund", tenant="default")
    assert _ran_in(runtime, "process") == before + 2


def test_the_process_sees_documents_the_worker_writes_after_it_started(served: tuple[Runtime, KBSearchProcess]) -> None:
    runtime, searches = served
    runtime.kb.add_document(title="Passwords", text=PASSWORDS, doc_id="passwords")
    found = searches.search("how to reset my password", tenant="default", k=1)
    assert [r.doc_id for r in found] == ["passwords"]
    assert runtime.kb.delete_document("passwords", tenant="default")
    assert "passwords" not in {r.doc_id for r in searches.search("how to reset my password", tenant="default")}


def test_a_bad_query_is_refused_from_the_process_as_it_is_here(served: tuple[Runtime, KBSearchProcess]) -> None:
    _, searches = served
    for query, k, why in (("   ", 5, "query: must not be empty"), ("refund", 0, "k: between 1 and")):
        with pytest.raises(InvalidInput, match=why):
            searches.search(query, tenant="default", k=k)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the priority of another process")
def test_the_process_runs_kb_nice_steps_below_the_worker(served: tuple[Runtime, KBSearchProcess]) -> None:
    runtime, searches = served
    pid = searches.pid()
    assert pid is not None and pid != os.getpid()
    own = os.getpriority(os.PRIO_PROCESS, 0)
    assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, own + runtime.settings.kb_nice)
    assert runtime.settings.kb_nice > 0  # the default lowers it


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_killed_process_costs_no_call_and_a_successor_takes_over(tmp_path: Path, embedder: Embedder) -> None:
    runtime, searches = _open(tmp_path / "kb.db")
    try:
        runtime.kb.add_document(title="Refunds", text=REFUNDS, doc_id="refunds")
        assert searches.search("refund", tenant="default")[0].doc_id == "refunds"  # no process yet: here
        assert (_ran_in(runtime, "worker"), _ran_in(runtime, "process")) == (1, 0)
        first = _until_ready(searches)  # that call spawned it
        os.kill(first, signal.SIGKILL)
        while _alive(first):
            time.sleep(0.01)
        assert searches.search("refund", tenant="default")[0].doc_id == "refunds"  # answered here meanwhile
        assert _ran_in(runtime, "worker") == 2
        second = _until_ready(searches)
        assert second != first
        assert searches.search("refund", tenant="default")[0].doc_id == "refunds"
        assert _ran_in(runtime, "process") == 1
    finally:
        runtime.close()
    assert not _alive(second)  # closing the runtime stops its process


_WORKER = """
import sys, time
from lastline import load_settings
from lastline.api import Runtime
runtime = Runtime.open(load_settings(db=sys.argv[1], kb_english_embedder="none"), background=True)
runtime.start_kb_process()
while not runtime.kb_searches.ready:
    time.sleep(0.05)
print(runtime.kb_searches.pid(), flush=True)
time.sleep(600)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_process_ends_when_its_worker_is_killed_outright(tmp_path: Path, embedder: Embedder) -> None:
    """A worker killed with SIGKILL (or by the OOM killer) sends its process no word: it must notice."""
    with subprocess.Popen([sys.executable, "-c", _WORKER, str(tmp_path / "kb.db")], stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True) as worker:
        try:
            assert worker.stdout is not None
            child = int(worker.stdout.readline())
            assert _alive(child)
        finally:
            worker.kill()
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)
