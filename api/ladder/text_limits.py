"""The per-field text limit (``max_prompt_chars``), checked against the operator's settings at run time.

Request models carry no static ``max_length`` on text fields, so an oversized field is refused
here, once, by the limit the operator set (and the README states), never by a hidden ceiling. The
whole body is bounded before it is read by :class:`lastline.api.http.limits.BodySizeLimit`.
"""

from __future__ import annotations

from lastline import InvalidInput, Settings

__all__ = ["check_text_lengths"]


def check_text_lengths(settings: Settings, **fields: str | None) -> None:
    """Raise 422 naming the first text field longer than ``max_prompt_chars``."""
    limit = settings.max_prompt_chars
    for name, value in fields.items():
        if value is not None and len(value) > limit:
            raise InvalidInput(
                f"{name}: {len(value)} characters exceeds max_prompt_chars ({limit:,})", field=name, limit=limit
            )
