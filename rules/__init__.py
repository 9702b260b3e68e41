"""lastline.rules: entities, rule packs, templates and JSON repair — structured work with no LLM."""

from ._types import ENTITY_TYPES, Entity
from .engine import BUILTIN_DIR, RuleEngine
from .entities import find_entities
from .extract import ExtractResult
from .numbers import parse_number
from .packs import Pack, PackError, Rule, load_pack, load_pack_file
from .regexes import PatternTimeout, UserPattern, compile_pattern
from .repair import repair_json
from .templates import render_template

__all__ = [
    "BUILTIN_DIR",
    "ENTITY_TYPES",
    "Entity",
    "ExtractResult",
    "Pack",
    "PackError",
    "PatternTimeout",
    "Rule",
    "RuleEngine",
    "UserPattern",
    "compile_pattern",
    "find_entities",
    "load_pack",
    "load_pack_file",
    "parse_number",
    "render_template",
    "repair_json",
]
