"""Input checks shared by put, lookup and invalidate: bad input fails early, by field name."""

from __future__ import annotations

import json
import math
from typing import Any

from lastline import InvalidInput, PayloadTooLarge, normalize_text, text_hash

from ._config import LANGUAGES

__all__ = [
    "MAX_TAGS",
    "MAX_TAG_CHARS",
    "check_context",
    "check_language",
    "check_metadata",
    "check_mode",
    "check_prompt",
    "check_tags",
    "check_tenant",
    "check_threshold",
    "check_ttl",
    "check_utf8",
]

MAX_TAGS = 64
MAX_TAG_CHARS = 200


def check_tenant(tenant: Any) -> str:
    if not isinstance(tenant, str) or not tenant.strip():
        raise InvalidInput("tenant must be a non-empty string", field="tenant")
    return tenant


def check_prompt(prompt: Any, max_chars: int, field: str = "prompt") -> tuple[str, str]:
    """``(normalized, hash)`` of a usable prompt; empty → 422, too long → 413."""
    if not isinstance(prompt, str):
        raise InvalidInput(f"{field} must be a string", field=field)
    if len(prompt) > max_chars:
        raise PayloadTooLarge(f"{field} has {len(prompt)} characters; the limit is {max_chars}", field=field)
    check_utf8(prompt, field)
    norm = normalize_text(prompt)
    if not norm:
        raise InvalidInput(f"{field} is empty (nothing left after normalization)", field=field)
    return norm, text_hash(norm)


def check_utf8(text: str, field: str) -> str:
    """Lone surrogates (``"\\ud800"`` in JSON) cannot be stored or hashed: a 422, not a 500."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(f"{field} is not valid Unicode text (lone surrogate)", field=field) from None
    return text


def check_ttl(ttl_s: Any) -> float | None:
    if ttl_s is None:
        return None
    if isinstance(ttl_s, bool) or not isinstance(ttl_s, int | float) or not math.isfinite(ttl_s) or ttl_s <= 0:
        raise InvalidInput(f"ttl_s must be a positive number of seconds, got {ttl_s!r}", field="ttl_s")
    return float(ttl_s)


def check_threshold(value: Any, field: str = "threshold") -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
        raise InvalidInput(f"{field} must be a number within [0, 1], got {value!r}", field=field)
    return float(value)


def check_language(language: Any) -> str:
    if language not in LANGUAGES:
        raise InvalidInput(f"language must be one of {', '.join(LANGUAGES)}, got {language!r}", field="language")
    return str(language)


def check_mode(mode: Any) -> str:
    if mode not in ("intercept", "fallback"):
        raise InvalidInput(f"mode must be 'intercept' or 'fallback', got {mode!r}", field="mode")
    return str(mode)


def check_tags(tags: Any) -> tuple[str, ...]:
    if tags is None:
        return ()
    if isinstance(tags, str):
        tags = (tags,)
    tags = tuple(tags)
    if len(tags) > MAX_TAGS:
        raise InvalidInput(f"at most {MAX_TAGS} tags per entry", field="tags")
    for tag in tags:
        if not isinstance(tag, str) or not tag.strip() or len(tag) > MAX_TAG_CHARS:
            raise InvalidInput(f"each tag must be a non-empty string of ≤{MAX_TAG_CHARS} chars", field="tags")
        check_utf8(tag, "tags")
    return tuple(dict.fromkeys(tags))


def check_context(context: Any) -> Any:
    try:
        json.dumps(context, sort_keys=True, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"context must be a string or JSON value: {exc}", field="context") from None
    return context


def check_metadata(metadata: Any) -> dict[str, Any] | None:
    if metadata is None:
        return None
    if not isinstance(metadata, dict):
        raise InvalidInput("metadata must be a JSON object", field="metadata")
    try:
        json.dumps(metadata, ensure_ascii=False).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"metadata must be JSON-serializable: {exc}", field="metadata") from None
    return metadata
