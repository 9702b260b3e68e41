"""Answering without an LLM: a matching FAQ answer, else cited passages, else an honest None.

Order of preference:
1. an FAQ whose question equals the query after normalization, or whose question is close enough
   (cosine ≥ ``faq_min_similarity`` or a rapidfuzz edit ratio ≥ ``faq_min_fuzz``) → its answer,
   confidence medium;
2. the top passages (extractive, never rewritten) with citations (document, heading, span),
   confidence low — the documented rule (README, docs/api.md, the demo FAQ "What do the confidence
   levels mean?"): medium is for a matching FAQ answer, low for document passages. An FAQ entry
   is one answer, never a passage to join with others: when the best result is an FAQ entry its
   answer is given alone, and FAQ entries further down are not appended to a document passage.
   A passage stops where its prose does: a trailing run of link-only lines ("See also" lists,
   link bullets) is not quoted;
3. nothing when no FAQ matched and the best passage's cosine is under ``passage_min_similarity``
   (the passage also matched the query's words) or ``passage_vector_only_similarity`` (it did not).
The similarity floors are per model (cosines differ between models), see :class:`KBConfig`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rapidfuzz import fuzz

from lastline.envelope import DEPTH, Answer, Citation, Confidence, Source, notice_for
from lastline.text import language_of, normalize_text

from ._config import KBConfig
from ._results import SearchResult

__all__ = ["compose_answer"]


#: A line that is only links (Markdown ``[x](y)``, bare URLs) as a list item or alone, or a
#: "See also"-style heading: what documentation pages end their sections with.
_LINK_LINE = re.compile(
    r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?:(?:\[[^\]]*\]\([^)]*\)|<?https?://\S+>?)[\s,;·|]*)+$"
    r"|^\s*(?:#+\s*)?(?:see also|related|links|further reading|参见|相关链接)\s*:?\s*$",
    re.I,
)


def passage_text(text: str) -> str:
    """``text`` without its trailing link-only lines and blank lines (the whole text if nothing else is left)."""
    lines = text.rstrip().split("\n")
    end = len(lines)
    while end > 0 and (not lines[end - 1].strip() or _LINK_LINE.match(lines[end - 1])):
        end -= 1
    return "\n".join(lines[:end]).rstrip() if end else text.strip()


def _citation(result: SearchResult, length: int | None = None) -> Citation:
    """The result's citation; ``length`` shortens the span to the quoted prefix of the chunk."""
    start, end = result.span
    if length is not None:
        end = min(end, start + length + (len(result.text) - len(result.text.lstrip())))
    return Citation(
        doc_id=result.doc_id, chunk_id=result.chunk_id, title=result.title, source=result.source,
        heading=" > ".join(result.heading) or None, span=(start, end),
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
    if top.kind == "faq" and top.answer:
        passages, texts = [top], [top.answer.strip()]
    else:
        more = [r for r in results[1 : config.answer_candidates]
                if r.kind != "faq" and (r.similarity or 0.0) >= config.passage_min_similarity]
        passages = [top, *more[: config.answer_passages - 1]]
        texts = [passage_text(r.text) for r in passages]
    citations = [_citation(r, None if r.kind == "faq" else len(t)) for r, t in zip(passages, texts, strict=True)]
    return Answer(
        answer="\n\n".join(texts), source=Source.KB,
        confidence=Confidence.LOW, degradation_depth=DEPTH["kb"],
        similarity=round(best_similarity, 4), citations=citations, notice=notice,
        layer="passage", entry_id=top.chunk_id,
    )
