"""Template answers: Jinja2 in an immutable sandbox with strict undefined.

The sandbox refuses attribute access to internals (``''.__class__.__mro__``), calls to unsafe
methods and mutation of the data; ``range`` is capped so a template cannot loop for minutes; the
output is capped in size. Every refusal is an :class:`InvalidInput` naming the reason.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from jinja2 import StrictUndefined, Template, TemplateSyntaxError, UndefinedError
from jinja2.exceptions import SecurityError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from lastline.errors import InvalidInput

__all__ = ["MAX_TEMPLATE_CHARS", "compile_template", "render_template"]

MAX_TEMPLATE_CHARS = 20_000
MAX_OUTPUT_CHARS = 100_000
MAX_RANGE = 1_000


def _safe_range(*args: int) -> range:
    r = range(*args)
    if len(r) > MAX_RANGE:
        raise SecurityError(f"range larger than {MAX_RANGE}")
    return r


_ENV = ImmutableSandboxedEnvironment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False)
_ENV.globals["range"] = _safe_range


@lru_cache(maxsize=256)
def compile_template(source: str) -> Template:
    """Parse a template once; syntax errors and oversize templates are :class:`InvalidInput`."""
    if len(source) > MAX_TEMPLATE_CHARS:
        raise InvalidInput(f"template longer than {MAX_TEMPLATE_CHARS} characters")
    try:
        return _ENV.from_string(source)
    except TemplateSyntaxError as exc:
        raise InvalidInput(f"template syntax error on line {exc.lineno}: {exc.message}") from None


def render_template(source: str, data: dict[str, Any]) -> str:
    """Render ``source`` with ``data``; unsafe access, undefined names and overflows are refused."""
    template = compile_template(source)
    try:
        text = template.render(**data)
    except SecurityError as exc:
        raise InvalidInput(f"template refused by the sandbox: {exc}") from None
    except UndefinedError as exc:
        raise InvalidInput(f"template uses an undefined value: {exc.message}") from None
    except (TypeError, ValueError, ArithmeticError, LookupError) as exc:
        raise InvalidInput(f"template failed: {type(exc).__name__}: {exc}") from None
    if len(text) > MAX_OUTPUT_CHARS:
        raise InvalidInput(f"template output longer than {MAX_OUTPUT_CHARS} characters")
    return text
