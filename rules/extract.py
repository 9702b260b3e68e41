"""Field extraction with one pack: rules in order, first normalizable match wins per field.

A field no rule fills is ``null`` and listed in ``missing``; a required field that is missing, a
normalizer that rejects every match or an output that breaks the pack's schema makes ``valid``
false with a readable entry in ``errors``. Nothing is ever invented to fill a gap.

When a rule's label matches but what follows it is not a value (``违约金为合同金额的百分之十五``: the
``合同金额`` label is followed by a percentage), a money, date or percent rule takes the typed entity
of its kind nearest that label in the same sentence (``人民币伍拾万元整`` just before it) — the
value the text states, found by :func:`find_entities`, never a guess.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

import jsonschema
import jsonschema_rs
from pydantic import ConfigDict, with_config

from lastline.errors import InvalidInput
from lastline.text import language_of

from ._types import Entity
from .entities import find_entities
from .normalizers import NormalizeError, normalize
from .packs import Pack, Rule
from .regexes import PatternTimeout

__all__ = ["ExtractResult", "extract_fields"]

MAX_TEXT_CHARS = 1_000_000
#: Normalizers whose rules fall back to the nearest typed entity, and the entity types each takes.
NEAREST_ENTITY_TYPES: dict[str, tuple[str, ...]] = {
    "money": ("money",), "amount": ("money",), "date": ("date", "datetime"), "datetime": ("datetime", "date"),
    "percent": ("percent",),
}
#: A label and its value never sit across one of these (sentence and line ends).
_SENTENCE_END = frozenset("。！？!?；;\n")


# Every field is in every answer: the HTTP schema marks them all required.
@with_config(ConfigDict(json_schema_serialization_defaults_required=True))
@dataclass
class ExtractResult:
    """What one pack extraction found: the answer of ``POST /v1/rules/extract`` and the client's result."""

    fields: dict[str, Any]
    missing: list[str]
    valid: bool
    errors: list[str] = field(default_factory=list)
    rule_ids: list[str] = field(default_factory=list)
    pack: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def extract_fields(pack: Pack, text: str, *, fields: Collection[str] | None = None,
                   reference_time: datetime | None = None) -> ExtractResult:
    """Fill ``pack``'s fields (or the subset ``fields``) from ``text``."""
    if len(text) > MAX_TEXT_CHARS:
        raise InvalidInput(f"text longer than {MAX_TEXT_CHARS} characters")
    wanted = list(pack.fields) if fields is None else list(dict.fromkeys(fields))
    unknown = [f for f in wanted if f not in pack.fields]
    if unknown:
        raise InvalidInput(f"pack {pack.name!r} has no field(s) {', '.join(unknown)}; it has {', '.join(pack.fields)}")
    values: dict[str, Any] = {f: None for f in wanted}
    errors: list[str] = []
    used: list[str] = []
    entities: list[Entity] | None = None
    lang = language_of(text[:4000])
    for rule in pack.rules:
        if rule.field not in values or (values[rule.field] is not None and not rule.collect):
            continue
        if rule.entity and not rule.patterns:
            if entities is None:
                entities = find_entities(text, reference_time=reference_time, lang=lang)
            found = _from_entities(rule, text, entities)
        else:
            labels: list[tuple[int, int]] = []
            found = _from_patterns(rule, text, reference_time, lang, errors, labels)
            if found is None and labels and rule.normalizer in NEAREST_ENTITY_TYPES:
                if entities is None:
                    entities = find_entities(text, reference_time=reference_time, lang=lang)
                found = nearest_entity(text, entities, labels, NEAREST_ENTITY_TYPES[rule.normalizer], rule.window)
        if found is None or found == []:
            continue
        if rule.collect:
            merged = list(values[rule.field] or [])
            merged.extend(v for v in found if v not in merged)
            values[rule.field] = merged
        else:
            values[rule.field] = found
        used.append(rule.id)
    for rule in pack.rules:
        if rule.collect and rule.field in values and values[rule.field] is None:
            values[rule.field] = []
    missing = [f for f, v in values.items() if v is None or v == []]
    for f in missing:
        if f in pack.required:
            errors.append(f"required field {f!r} not found")
    errors.extend(_schema_errors(pack, values, partial=fields is not None))
    return ExtractResult(fields=values, missing=missing, valid=not errors, errors=errors,
                         rule_ids=used, pack=pack.name)


def _from_patterns(rule: Rule, text: str, ref: datetime | None, lang: str, errors: list[str],
                   labels: list[tuple[int, int]]) -> Any:
    """The first normalizable match (every one when ``collect``); the label span of each match whose
    value did not normalize is appended to ``labels`` (the text before its value group)."""
    out: list[Any] = []
    for pattern in rule.patterns:
        try:
            for m in pattern.finditer(text):
                group = m.groups.get("value") or m.groups.get(rule.field)
                raw = group[0] if group else m.text
                try:
                    value = normalize(rule.normalizer, raw, ref, lang)
                except NormalizeError:
                    labels.append((m.start, group[1] if group else m.end))
                    continue
                if not rule.collect:
                    return value
                if value not in out:
                    out.append(value)
        except PatternTimeout as exc:
            errors.append(f"rule {rule.id!r}: {exc}")
    if rule.collect:
        return out
    return None


def nearest_entity(text: str, entities: list[Entity], labels: list[tuple[int, int]], types: tuple[str, ...],
                   window: int) -> Any:
    """Value of the entity of ``types`` nearest any label span, at most ``window`` characters away and
    with no sentence or line end between them; None when there is none.

    Ties go to the entity after the label (``金额：…`` is read forward), then to the earlier label.
    """
    best: tuple[int, int, Any] | None = None
    for e in entities:
        if e.type not in types:
            continue
        for start, end in labels:
            if e.start >= end:
                gap, after = text[end:e.start], 0
            elif e.end <= start:
                gap, after = text[e.end:start], 1
            else:
                gap, after = "", 0
            if len(gap) > window or _SENTENCE_END.intersection(gap):
                continue
            key = (len(gap), after)
            if best is None or key < best[:2]:
                best = (*key, e.value)
    return best[2] if best is not None else None


def _from_entities(rule: Rule, text: str, entities: list[Entity]) -> Any:
    typed = [e for e in entities if e.type == rule.entity or
             (rule.entity == "date" and e.type == "datetime")]
    if rule.near:
        anchors = [i + len(word) for word in rule.near for i in _find_all(text, word)]
        typed = [e for e in typed if any(0 <= e.start - a <= rule.window for a in anchors)]
        typed.sort(key=lambda e: min(e.start - a for a in anchors if 0 <= e.start - a <= rule.window))
    if rule.collect:
        out: list[Any] = []
        for e in typed:
            if e.value not in out:
                out.append(e.value)
        return out
    return typed[0].value if typed else None


def _find_all(text: str, word: str) -> list[int]:
    out: list[int] = []
    i = text.find(word)
    while i != -1 and len(out) < 1000:
        out.append(i)
        i = text.find(word, i + 1)
    return out


#: Validators by schema object: building one costs more than a whole extraction of a short contract,
#: and a pack's schema never changes once loaded (keyed by id, the schema kept to pin that id). Each
#: schema has two: jsonschema-rs answers whether an output is valid (microseconds, every extraction);
#: jsonschema words the errors of an output that is not (the messages packs and tests know).
_VALIDATORS: dict[int, tuple[dict[str, Any], jsonschema_rs.Draft202012Validator, jsonschema.Draft202012Validator]] = {}


def _validators(schema: dict[str, Any]) -> tuple[jsonschema_rs.Draft202012Validator, jsonschema.Draft202012Validator]:
    cached = _VALIDATORS.get(id(schema))
    if cached is not None and cached[0] is schema:
        return cached[1], cached[2]
    fast, wording = jsonschema_rs.Draft202012Validator(schema), jsonschema.Draft202012Validator(schema)
    if len(_VALIDATORS) > 1024:
        _VALIDATORS.clear()
    _VALIDATORS[id(schema)] = (schema, fast, wording)
    return fast, wording


def _schema_errors(pack: Pack, values: dict[str, Any], partial: bool) -> list[str]:
    schema = pack.schema
    if partial and isinstance(schema.get("required"), list):
        schema = {**schema, "required": [f for f in schema["required"] if f in values]}
    fast, wording = _validators(schema)
    if fast.is_valid(values):
        return []
    return [f"schema: {'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}"
            for e in wording.iter_errors(values)][:20]
