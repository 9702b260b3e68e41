"""Answering without an LLM: a matching FAQ answer, else cited passages, else an honest None.

Order of preference:
1. an FAQ whose question equals the query after normalization, or whose question is close enough
   (cosine ≥ ``faq_min_similarity`` or a rapidfuzz edit ratio ≥ ``faq_min_fuzz``) → its answer,
   confidence medium;
2. the top passages (extractive, never rewritten) with citations (document, heading, span):
   confidence medium when the best passage is both a keyword and a vector hit with cosine
   ≥ ``passage_medium_similarity``, low otherwise;
3. nothing when no FAQ matched and the best passage's cosine is under ``passage_min_similarity``
   (the passage also matched the query's words) or ``passage_vector_only_similarity`` (it did not).
The similarity floors are per model (cosines differ between models), see :class:`KBConfig`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz import fuzz

from lastline.envelope import DEPTH, Answer, Citation, Confidence, Source, notice_for
from lastline.text import language_of, normalize_text

from ._config import KBConfig
from ._results import SearchResult

__all__ = ["compose_answer"]


def _citation(result: SearchResult) -> Citation:
    return Citation(
        doc_id=result.doc_id, chunk_id=result.chunk_id, title=result.title, source=result.source,
        heading=" > ".join(result.heading) or None, span=result.span,
    )


def _faq_score(query_norm: str, result: SearchResult, config: KBConfig) -> float | None:
    """How well an FAQ result's question matches the query, or None when it does not match well."""
    if result.kind != "faq" or not result.question:
        return None
    question_norm = normalize_text(result.question)
    if question_norm == query_norm:
        return 1.0
    ratio = fuzz.ratio(query_norm, question_norm) / 100.0
    cosine = result.similarity or 0.0
    if cosine >= config.faq_min_similarity or ratio >= config.faq_min_fuzz:
        return max(cosine, ratio)
    return None


def compose_answer(query: str, results: Sequence[SearchResult], config: KBConfig) -> Answer | None:
    """Turn ranked results (exact FAQ matches first) into an answer envelope, or None."""
    if not results:
        return None
    notice = notice_for(Source.KB, language_of(query))
    query_norm = normalize_text(query)
    faq = [(score, r) for r in results[: config.answer_candidates] if (score := _faq_score(query_norm, r, config))]
    if faq:
        score, best = max(faq, key=lambda pair: pair[0])
        return Answer(
            answer=best.answer, source=Source.KB, confidence=Confidence.MEDIUM, degradation_depth=DEPTH["kb"],
            similarity=round(score, 4), citations=[_citation(best)], notice=notice, layer="faq",
            entry_id=best.chunk_id,
        )
    top = results[0]
    best_similarity = top.similarity if top.similarity is not None else 0.0
    floor = config.passage_min_similarity if top.keyword_rank is not None else config.passage_vector_only_similarity
    if best_similarity < floor:
        return None
    passages = [
        r for r in results[: config.answer_candidates]
        if (r.similarity or 0.0) >= config.passage_min_similarity
    ][: config.answer_passages]
    strong = top.keyword_rank is not None and best_similarity >= config.passage_medium_similarity
    texts = [(r.answer if r.kind == "faq" and r.answer else r.text).strip() for r in passages]
    return Answer(
        answer="\n\n".join(texts), source=Source.KB,
        confidence=Confidence.MEDIUM if strong else Confidence.LOW, degradation_depth=DEPTH["kb"],
        similarity=round(best_similarity, 4), citations=[_citation(r) for r in passages], notice=notice,
        layer="passage", entry_id=top.chunk_id,
    )
