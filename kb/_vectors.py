"""Keeping a vector space complete: rebuilt when its model changes, filled where chunks lack vectors.

A space records the model it was built with and how much of each chunk that model was fed
(:func:`space_model`); opening the KB with another model, or another cut, resets the space and
re-embeds the chunks it holds, so vectors of two models (or of whole and cut chunks) never mix. The model id is cleared
first and written last, so an interrupted rebuild is redone at the next start.
"""

from __future__ import annotations

from collections.abc import Callable

from lastline.embedding import Embedder
from lastline.encoder_pool import EncoderPool

from ._index_text import embedding_text
from ._store import VectorIndex
from ._writer import encode_sorted

__all__ = ["REEMBED_BATCH", "ensure_space", "fill_space", "space_model", "start_space"]

REEMBED_BATCH = 256


def space_model(embedder: Embedder, chars: int | None) -> str:
    """The model id a space records: the embedder's, plus the cut when it is fed the first ``chars`` only."""
    return embedder.model_id if chars is None else f"{embedder.model_id}@{chars}chars"


def fill_space(
    index: VectorIndex, embedder: Embedder, *, batch: int = REEMBED_BATCH,
    progress: Callable[[int, int], None] | None = None, should_stop: Callable[[], bool] | None = None,
    chars: int | None = None, pool: EncoderPool | None = None,
) -> int:
    """Embed every chunk ``index``'s space holds but has no vector for; returns how many were written.

    ``chars`` is how much of each embedded text the model is fed (``KBConfig.reads``), as on ingest.
    ``pool``: worker processes of ``embedder``'s model that encode instead of this process (a bulk
    fill, e.g. ``lastline kb ingest`` filling the English space before it exits).

    Works in batches, each written in its own transaction, so a stop (or a crash) keeps what is
    done and the next call resumes where this one ended.
    """
    total = index.pending()
    done = 0
    while should_stop is None or not should_stop():
        todo = index.missing(batch)
        if not todo:
            break
        texts = [embedding_text(c.kind, c.title, c.heading, c.text, c.question)[:chars] for c in todo]
        rows = pool.encode(texts) if pool is not None else encode_sorted(embedder, texts)
        index.insert([(c.rowid, c.tenant, c.collection) for c in todo], rows)
        done += len(todo)
        if progress is not None:
            progress(done, max(total, done))
    return done


def ensure_space(
    index: VectorIndex, embedder: Embedder, progress: Callable[[int, int], None] | None = None,
    chars: int | None = None,
) -> int:
    """Make ``index``'s space hold ``embedder``'s vectors for every chunk it holds.

    Returns how many chunks were (re-)embedded (0 when the model and ``chars`` are unchanged).
    """
    if not start_space(index, embedder, chars):
        return 0
    done = fill_space(index, embedder, progress=progress, chars=chars)
    index.mark_built(space_model(embedder, chars))
    return done


def start_space(index: VectorIndex, embedder: Embedder, chars: int | None = None) -> bool:
    """Make ``index``'s space ready to be filled with ``embedder``'s vectors; False when it already holds them.

    Three cases. The space holds this model: nothing to do (False). Another replica is building
    it with this dimension (reset, not yet marked built): join that build (True) — both fill what
    is missing, their vectors are the same, either marks it built; dropping it instead would race
    that replica's writes (and, on PostgreSQL, deadlock against them). Otherwise reset it with a
    compare-and-reset (``VectorIndex.reset(seen=…)``): when another replica built the space between
    this one's look and its reset, the look is taken again rather than the space dropped, so vectors
    written meanwhile (a document ingested through that replica) stay. Replicas of one deployment
    run one model per space, so a build in progress of the same dimension is taken to be this model's.
    """
    want = (space_model(embedder, chars), embedder.dim)
    while True:
        seen = index.model()
        if seen == want:
            return False
        if seen is None and index.building() == embedder.dim:
            return True
        if index.reset(embedder.dim, seen=seen):
            return True
