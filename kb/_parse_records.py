"""Row formats: FAQ CSV/JSONL (``question``, ``answer``, extra columns → metadata) and BEIR ``corpus.jsonl``.

Each row is its own document, so re-ingesting a file that changed one answer rewrites one entry.
A FAQ entry is one chunk; its question is also stored apart so a query can match it directly.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from lastline.text import normalize_text, text_hash

from ._parse_markup import decode_text
from ._parsed import ParsedDocument, ParseError, Section

__all__ = ["parse_csv", "parse_jsonl", "parse_records"]

_QUESTION_KEYS = ("question", "问题", "q")
_ANSWER_KEYS = ("answer", "答案", "a")
_ID_KEYS = ("id", "_id")
_TAG_KEYS = ("tags", "tag", "标签")


def _pick(row: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    lowered = {str(k).strip().lower(): k for k in row}
    for key in keys:
        if key in lowered:
            return str(lowered[key])
    return None


def _tags(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v).strip() for v in value if str(v).strip()]
    return [t.strip() for t in str(value or "").replace(";", ",").replace("，", ",").split(",") if t.strip()]


def _faq(row: dict[str, Any], number: int, seen: set[str]) -> ParsedDocument:
    q_key, a_key = _pick(row, _QUESTION_KEYS), _pick(row, _ANSWER_KEYS)
    question = str(row.get(q_key) or "").strip() if q_key else ""
    answer = str(row.get(a_key) or "").strip() if a_key else ""
    if not question or not answer:
        raise ParseError(f"row {number}: empty question or answer")
    id_key, tag_key = _pick(row, _ID_KEYS), _pick(row, _TAG_KEYS)
    explicit = str(row[id_key]).strip() if id_key and str(row.get(id_key) or "").strip() else None
    key = explicit or text_hash(normalize_text(question))[:12]
    while key in seen:  # the same question twice: keep both, told apart
        key += "+"
    seen.add(key)
    used = {q_key, a_key, id_key, tag_key}
    metadata = {str(k): v for k, v in row.items() if k not in used and k is not None and v not in (None, "")}
    text = f"{question}\n{answer}"
    return ParsedDocument(
        text=text, title=question, sections=[Section((), 0, len(text))], kind="faq", key=f"#{key}",
        question=question, answer=answer, metadata=metadata, tags=_tags(row.get(tag_key) if tag_key else None),
    )


def _beir(row: dict[str, Any], number: int) -> ParsedDocument:
    doc_id = str(row.get("_id") or "").strip()
    text = str(row.get("text") or "")
    if not doc_id:
        raise ParseError(f"row {number}: no _id")
    title = str(row.get("title") or "").strip()
    metadata = row.get("metadata") if isinstance(row.get("metadata"), dict) else {}
    return ParsedDocument.plain(text, title, key=f"#{doc_id}", doc_id=doc_id, metadata=metadata)


def parse_records(rows: list[dict[str, Any]]) -> list[ParsedDocument]:
    """Decide the row format from the first row and parse all rows (bad rows are a ParseError)."""
    if not rows:
        raise ParseError("no rows")
    first = rows[0]
    if _pick(first, _QUESTION_KEYS) and _pick(first, _ANSWER_KEYS):
        seen: set[str] = set()
        return [_faq(row, i, seen) for i, row in enumerate(rows, start=1)]
    if "_id" in first and "text" in first:
        return [_beir(row, i) for i, row in enumerate(rows, start=1)]
    raise ParseError(f"rows need question/answer (FAQ) or _id/text (BEIR); got {sorted(map(str, first))[:8]}")


def parse_csv(data: bytes, name: str) -> list[ParsedDocument]:
    text = decode_text(data)
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",\t;")
    except csv.Error:
        dialect = csv.excel
    try:
        rows = list(csv.DictReader(io.StringIO(text), dialect=dialect))
    except csv.Error as exc:
        raise ParseError(f"bad CSV: {exc}") from exc
    return parse_records([{k: v for k, v in row.items() if k is not None} for row in rows])


def parse_jsonl(data: bytes, name: str) -> list[ParsedDocument]:
    rows: list[dict[str, Any]] = []
    for number, line in enumerate(decode_text(data).split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ParseError(f"line {number}: invalid JSON ({exc.msg})") from exc
        if not isinstance(row, dict):
            raise ParseError(f"line {number}: not a JSON object")
        rows.append(row)
    return parse_records(rows)
