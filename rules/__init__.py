"""lastline.rules: entities, rule packs, templates and JSON repair — structured work with no LLM."""

from ._types import ENTITY_TYPES, Entity
from .entities import find_entities
from .numbers import parse_number

__all__ = ["ENTITY_TYPES", "Entity", "find_entities", "parse_number"]
