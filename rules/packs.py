"""Rule packs: YAML files of triggers, field rules, an output schema and optional templates.

A pack is validated completely when it is loaded — structure, every pattern, every normalizer,
the output JSON Schema and every template — and any problem raises :class:`PackError` naming the
file, the rule and the field, e.g. ``packs/shop.yaml: rule 'total' field 'normalizer': 'moeny' is
not one of …``. See docs/rules.md for the format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from jinja2 import TemplateSyntaxError

from lastline.errors import InvalidInput

from ._types import ENTITY_TYPES
from .normalizers import NORMALIZERS, SCHEMA_TYPES
from .regexes import PatternError, UserPattern, compile_pattern
from .templates import compile_template

__all__ = ["PACK_SCHEMA", "Pack", "PackError", "Rule", "load_pack", "load_pack_file", "parse_pack_yaml"]

MAX_PACK_BYTES = 256_000
_NAME = "^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$"
PACK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "rules"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "pattern": _NAME},
        "description": {"type": "string"},
        "language": {"enum": ["zh", "en", "any"]},
        "version": {"type": ["string", "integer"]},
        "ignore_case": {"type": "boolean"},
        "triggers": {
            "type": "object", "additionalProperties": False,
            "properties": {
                "tasks": {"type": "array", "items": {"type": "string"}},
                "keywords": {"type": "array", "items": {"type": "string", "minLength": 1}},
                "min_keywords": {"type": "integer", "minimum": 1},
            },
        },
        "rules": {"type": "array", "minItems": 1, "items": {
            "type": "object", "required": ["id"], "additionalProperties": False,
            "properties": {
                "id": {"type": "string", "pattern": _NAME},
                "field": {"type": "string", "pattern": _NAME},
                "description": {"type": "string"},
                "patterns": {"type": "array", "items": {"type": "string", "minLength": 1}},
                "entity": {"enum": list(ENTITY_TYPES)},
                "near": {"type": "array", "items": {"type": "string", "minLength": 1}},
                "window": {"type": "integer", "minimum": 1, "maximum": 2000},
                "normalizer": {"enum": sorted(NORMALIZERS)},
                "required": {"type": "boolean"},
                "collect": {"type": "boolean"},
            },
        }},
        "schema": {"type": "object"},
        "template": {"type": "string"},
        "templates": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}
_VALIDATOR = jsonschema.Draft202012Validator(PACK_SCHEMA)


class PackError(InvalidInput):
    """A rule pack failed validation; ``detail`` names file, rule and field."""

    code = "invalid_rule_pack"


@dataclass(frozen=True)
class Rule:
    """One way of filling one field: patterns (first normalizable match wins) or an entity type."""

    id: str
    field: str
    patterns: tuple[UserPattern, ...] = ()
    entity: str | None = None
    near: tuple[str, ...] = ()
    window: int = 40
    normalizer: str = "text"
    required: bool = False
    collect: bool = False


@dataclass(frozen=True)
class Pack:
    name: str
    rules: tuple[Rule, ...]
    fields: tuple[str, ...]
    required: frozenset[str]
    schema: dict[str, Any]
    description: str = ""
    language: str = "any"
    tasks: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    min_keywords: int = 2
    templates: dict[str, str] = field(default_factory=dict)
    source: str = "<memory>"
    builtin: bool = False
    raw: str = ""

    @property
    def template(self) -> str | None:
        """The pack's default template text, if it has one."""
        return self.templates.get("default")

    def describe(self) -> dict[str, Any]:
        """What ``GET /v1/rules/packs`` shows for this pack."""
        return {"name": self.name, "description": self.description, "language": self.language,
                "fields": list(self.fields), "required": sorted(self.required), "tasks": list(self.tasks),
                "templates": sorted(self.templates), "builtin": self.builtin, "source": self.source}


def _where(source: str, data: Any, path: list[Any]) -> str:
    """``file: rule 'x' field 'y'`` for a jsonschema error path."""
    parts = [source + ":"]
    if len(path) >= 2 and path[0] == "rules" and isinstance(path[1], int):
        rules = data.get("rules") if isinstance(data, dict) else None
        rule_id = rules[path[1]].get("id") if isinstance(rules, list) and isinstance(rules[path[1]], dict) else None
        parts.append(f"rule {rule_id!r}" if rule_id else f"rules[{path[1]}]")
        if len(path) > 2:
            parts.append(f"field {path[2]!r}")
    elif path:
        parts.append(f"field {'.'.join(str(p) for p in path)!r}")
    return " ".join(parts)


def parse_pack_yaml(text: str, source: str = "<upload>") -> Any:
    if len(text.encode("utf-8")) > MAX_PACK_BYTES:
        raise PackError(f"{source}: pack larger than {MAX_PACK_BYTES} bytes")
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise PackError(f"{source}: not valid YAML: {exc}") from None


def load_pack(data: Any, source: str = "<upload>", *, builtin: bool = False, raw: str = "") -> Pack:
    """Validate a parsed pack and compile its patterns, schema and templates."""
    if not isinstance(data, dict):
        raise PackError(f"{source}: a pack must be a mapping with 'name' and 'rules'")
    errors = sorted(_VALIDATOR.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        err = errors[0]
        missing = ""
        if err.validator == "required":
            missing = ""
        raise PackError(f"{_where(source, data, list(err.absolute_path))}: {err.message}{missing}")
    ignore_case = bool(data.get("ignore_case", False))
    rules: list[Rule] = []
    seen: set[str] = set()
    for raw_rule in data["rules"]:
        rid = raw_rule["id"]
        where = f"{source}: rule {rid!r}"
        if rid in seen:
            raise PackError(f"{where} field 'id': duplicate rule id")
        seen.add(rid)
        if not raw_rule.get("patterns") and not raw_rule.get("entity"):
            raise PackError(f"{where} field 'patterns': give patterns or an entity type")
        patterns = []
        for i, pattern in enumerate(raw_rule.get("patterns", [])):
            try:
                patterns.append(compile_pattern(pattern, ignore_case=ignore_case))
            except PatternError as exc:
                raise PackError(f"{where} field 'patterns[{i}]': {exc}") from None
        normalizer = raw_rule.get("normalizer") or _default_normalizer(raw_rule.get("entity"))
        rules.append(Rule(
            id=rid, field=raw_rule.get("field", rid), patterns=tuple(patterns), entity=raw_rule.get("entity"),
            near=tuple(raw_rule.get("near", ())), window=int(raw_rule.get("window", 40)), normalizer=normalizer,
            required=bool(raw_rule.get("required", False)), collect=bool(raw_rule.get("collect", False)),
        ))
    fields = tuple(dict.fromkeys(r.field for r in rules))
    required = frozenset(r.field for r in rules if r.required)
    schema = data.get("schema") or _default_schema(rules, fields)
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise PackError(f"{source}: field 'schema': not a valid JSON Schema: {exc.message}") from None
    templates = dict(data.get("templates", {}))
    if "template" in data:
        templates["default"] = data["template"]
    for tname, ttext in templates.items():
        try:
            compile_template(ttext)
        except (TemplateSyntaxError, InvalidInput) as exc:
            raise PackError(f"{source}: field 'templates.{tname}': {exc}") from None
    triggers = data.get("triggers", {})
    return Pack(
        name=data["name"], rules=tuple(rules), fields=fields, required=required, schema=schema,
        description=data.get("description", ""), language=data.get("language", "any"),
        tasks=tuple(triggers.get("tasks", ())), keywords=tuple(triggers.get("keywords", ())),
        min_keywords=int(triggers.get("min_keywords", 2)), templates=templates, source=source,
        builtin=builtin, raw=raw,
    )


def load_pack_file(path: Path, *, builtin: bool = False) -> Pack:
    """Read, parse and validate one YAML pack file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PackError(f"{path}: cannot read: {exc}") from None
    return load_pack(parse_pack_yaml(text, str(path.name if builtin else path)),
                     str(path.name if builtin else path), builtin=builtin, raw=text)


def _default_normalizer(entity: str | None) -> str:
    if entity in ("date", "datetime", "daterange", "time", "duration", "money", "percent", "number", "phone",
                  "email", "url", "id_card", "order_id"):
        return entity
    return "text"


def _default_schema(rules: list[Rule], fields: tuple[str, ...]) -> dict[str, Any]:
    props: dict[str, Any] = {}
    for rule in rules:
        if rule.field in props:
            continue
        item = SCHEMA_TYPES.get(rule.normalizer, {"type": "string"})
        if rule.collect:
            props[rule.field] = {"type": "array", "items": item}
        else:
            props[rule.field] = {"anyOf": [item, {"type": "null"}]}
    return {"type": "object", "properties": props, "required": list(fields)}
