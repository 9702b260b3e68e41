"""lastline vs GPTCache itself on GPTCache's own benchmark, side by side in one run.

Data: ``gptcache_mock_pairs.json`` (999 ``{origin, similar}`` English paraphrase pairs). Each
``origin`` is stored with its own id as the answer; each ``similar`` is looked up. A hit that
returns its own pair's id is right, another id is wrong, nothing is a miss.

Both caches get the same embedder (lastline's default, USE multilingual, L2-normalized) — GPTCache
as its ``embedding_func`` — and store in SQLite + FAISS (GPTCache: ``CacheBase("sqlite")`` +
``VectorBase("faiss")``, ``SearchDistanceEvaluation``, as in its own benchmark script). GPTCache's
``similarity_threshold`` s compares ``4 − L2²`` with ``4·s``; on unit vectors that is cosine ≥ 2s − 1,
so each cosine threshold below is given to GPTCache as s = (1 + cos) / 2.

Two parts:
- accuracy + framework cost: vectors are computed once up front and both caches read them from a
  dict (a zero-cost embedder), so the lookup times are each framework's own overhead;
- end to end: the real embedder per call; per-item inserts (insert rate) and lookups (p50/p99).

GPTCache offline: its sqlite data manager needs SQLAlchemy (``bench`` extra), and it must not
``pip install`` anything at import time; both are handled below.

Usage: python bench/gptcache_compare.py [--faiss-threads 1]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cache_common import CACHE_DATA, percentile_ms, temp_cache
from _common import Section

from lastline import get_embedder, normalize_text
from lastline.cache import CacheConfig, default_threshold

SECTION = "### GPTCache side by side (`bench/gptcache_compare.py`)"

THRESHOLDS = (0.98, 0.97, 0.90, 0.60)  # lastline intercept / fallback defaults, a common 0.9, GPTCache's 0.8


class MemoEmbedder:
    """Precomputed vectors behind the Embedder interface: framework cost without model cost."""

    def __init__(self, inner: Any, texts: Sequence[str]) -> None:
        self.model_id, self.dim = inner.model_id, inner.dim
        # lastline embeds the normalized prompt, GPTCache the raw one: precompute both
        unique = list(dict.fromkeys([*texts, *(normalize_text(t) for t in texts)]))
        self._vec = dict(zip(unique, inner.encode(unique), strict=True))
        self._inner = inner

    def load(self) -> None:
        return None

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([self._vec[t] if t in self._vec else self._inner.encode([t])[0] for t in texts])


def _gptcache_offline() -> None:
    """Stop GPTCache from pip-installing at import time (it shells out to pip for missing libs)."""
    import gptcache.utils.dependency_control as dc

    def refuse(package: str) -> None:
        raise RuntimeError(f"gptcache wanted to pip install {package!r}; install the 'bench' extra")

    dc.prompt_install = refuse  # type: ignore[assignment]


def gptcache_system(embed: Callable[[str], np.ndarray], dim: int, cos: float, folder: Path) -> tuple[Any, Any, Any]:
    from gptcache import Cache, Config
    from gptcache.adapter.api import get, put
    from gptcache.manager import CacheBase, VectorBase, get_data_manager
    from gptcache.processor.pre import get_prompt
    from gptcache.similarity_evaluation.distance import SearchDistanceEvaluation

    data_manager = get_data_manager(
        CacheBase("sqlite", sql_url=f"sqlite:///{folder / 'gptcache.db'}"),
        VectorBase("faiss", dimension=dim, index_path=str(folder / "faiss.index")),
        max_size=100_000,
    )
    cache = Cache()
    cache.init(pre_embedding_func=get_prompt, embedding_func=lambda data, **_: embed(data),
               data_manager=data_manager, similarity_evaluation=SearchDistanceEvaluation(),
               config=Config(similarity_threshold=(1 + cos) / 2))
    return cache, (lambda p, a: put(p, a, cache_obj=cache)), (lambda p: get(p, cache_obj=cache))


def run_gptcache(pairs: list[dict[str, str]], embedder: Any, cos: float, batch: bool) -> dict[str, Any]:
    # not a TemporaryDirectory: GPTCache flushes its FAISS file at interpreter exit, into this folder
    tmp = tempfile.mkdtemp(prefix="gptcache-")
    cache, put, get = gptcache_system(lambda t: embedder.encode([t])[0], embedder.dim, cos, Path(tmp))
    started = time.perf_counter()
    if batch:
        cache.import_data([p["origin"] for p in pairs], [str(i) for i in range(len(pairs))])
    else:
        for i, p in enumerate(pairs):
            put(p["origin"], str(i))
    insert_s = time.perf_counter() - started
    answers, times = [], []
    for p in pairs:
        t0 = time.perf_counter()
        answers.append(get(p["similar"]))
        times.append(time.perf_counter() - t0)
    return _tally("GPTCache 0.1.44", cos, answers, times, len(pairs) / insert_s)


def run_lastline(pairs: list[dict[str, str]], embedder: Any, cos: float, batch: bool) -> dict[str, Any]:
    cache: Any = temp_cache(CacheConfig(), "compare", embedder)  # shipped configuration
    started = time.perf_counter()
    if batch:
        cache.put_many([{"prompt": p["origin"], "response": str(i)} for i, p in enumerate(pairs)])
    else:
        for i, p in enumerate(pairs):
            cache.put(p["origin"], str(i))
    insert_s = time.perf_counter() - started
    answers, times = [], []
    for p in pairs:
        t0 = time.perf_counter()
        res = cache.lookup(p["similar"], threshold=cos)
        times.append(time.perf_counter() - t0)
        answers.append(res.answer)
    return _tally("lastline", cos, answers, times, len(pairs) / insert_s)


def _tally(system: str, cos: float, answers: list[Any], times: list[float], insert_rate: float) -> dict[str, Any]:
    right = sum(1 for i, a in enumerate(answers) if a == str(i))
    missed = sum(1 for a in answers if a is None)
    return {"system": system, "cos": cos, "right": right, "wrong": len(answers) - right - missed, "miss": missed,
            "p50_ms": percentile_ms(times, 50), "p99_ms": percentile_ms(times, 99), "insert_per_s": insert_rate}


def _row(r: dict[str, Any]) -> str:
    return (f"| {r['system']} | {r['cos']:.2f} | {r['right']} | {r['wrong']} | {r['miss']} | "
            f"{r['p50_ms']:.2f} | {r['p99_ms']:.2f} | {r['insert_per_s']:.0f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--faiss-threads", type=int, default=1,
                        help="OpenMP threads for FAISS in both caches (0: library default)")
    parser.add_argument("--write", action="store_true", help=f"replace '{SECTION}' in docs/benchmarks.md")
    args = parser.parse_args()
    import faiss

    if args.faiss_threads:
        faiss.omp_set_num_threads(args.faiss_threads)
    _gptcache_offline()
    pairs = json.loads((CACHE_DATA / "gptcache_mock_pairs.json").read_text(encoding="utf-8"))
    embedder = get_embedder("use", 1)
    embedder.load()
    same_norm = sum(1 for p in pairs if normalize_text(p["origin"]) == normalize_text(p["similar"]))
    out = Section(SECTION)
    out(f"FAISS OpenMP threads: {args.faiss_threads or 'library default'}.\n")
    out(f"{len(pairs)} pairs; {same_norm} are identical after lastline's normalization. lastline's shipped "
        f"intercept threshold for {embedder.model_id}: "
        f"{default_threshold(embedder.model_id, 'intercept').value}.\n")
    memo = MemoEmbedder(embedder, [t for p in pairs for t in (p["origin"], p["similar"])])
    out("## Accuracy and framework overhead (precomputed vectors; batch import)\n")
    out("| system | cosine ≥ | right hits | wrong hits | misses | lookup p50 ms | lookup p99 ms | inserts/s |")
    out("|---|---|---|---|---|---|---|---|")
    for cos in THRESHOLDS:
        for runner in (run_lastline, run_gptcache):
            out(_row(runner(pairs, memo, cos, batch=True)), flush=True)
    out("\n## End to end (real embedder on every call; one put per entry)\n")
    out("| system | cosine ≥ | right hits | wrong hits | misses | lookup p50 ms | lookup p99 ms | inserts/s |")
    out("|---|---|---|---|---|---|---|---|")
    for runner, cos in ((run_lastline, 0.98), (run_gptcache, 0.98), (run_gptcache, 0.60)):
        out(_row(runner(pairs, embedder, cos, batch=False)), flush=True)
    out.done(args.write)


if __name__ == "__main__":
    main()
