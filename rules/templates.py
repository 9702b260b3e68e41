"""Template answers: Jinja2 in an immutable sandbox with strict undefined and a work budget.

The sandbox refuses attribute access to internals (``''.__class__.__mro__``), calls to unsafe
methods and mutation of the data. On top of that, because a template is user input and must not
stall the service: every loop iteration (``range`` and the lists and mappings handed in as data)
is charged to a budget of ``MAX_ITERATIONS`` and a ``MAX_RENDER_S`` deadline; ``*`` and ``**`` may
not build huge values; output is streamed and cut at ``MAX_OUTPUT_CHARS``. Every refusal is an
:class:`InvalidInput` naming the reason.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from functools import lru_cache
from typing import Any

from jinja2 import StrictUndefined, Template, TemplateSyntaxError, UndefinedError
from jinja2.exceptions import SecurityError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from lastline.errors import InvalidInput

__all__ = ["MAX_ITERATIONS", "MAX_OUTPUT_CHARS", "MAX_TEMPLATE_CHARS", "compile_template", "render_template"]

MAX_TEMPLATE_CHARS = 20_000
MAX_OUTPUT_CHARS = 100_000
MAX_RANGE = 1_000
MAX_ITERATIONS = 100_000
MAX_RENDER_S = 2.0
MAX_POWER = 256

_budget: ContextVar[list[float]] = ContextVar("template_budget")  # [iterations left, deadline]


def _charge() -> None:
    budget = _budget.get(None)
    if budget is None:
        return
    budget[0] -= 1
    if budget[0] < 0:
        raise SecurityError(f"template loops ran past {MAX_ITERATIONS} iterations")
    if time.monotonic() > budget[1]:
        raise SecurityError(f"template ran past {MAX_RENDER_S} s")


def _counted(items: Any) -> Iterator[Any]:
    for item in items:
        _charge()
        yield item


class _List(list):  # type: ignore[type-arg]
    """A list from the caller's data whose iteration is charged to the budget."""

    def __iter__(self) -> Iterator[Any]:
        return _counted(list.__iter__(self))


class _Dict(dict):  # type: ignore[type-arg]
    """A mapping from the caller's data whose iteration is charged to the budget."""

    def __iter__(self) -> Iterator[Any]:
        return _counted(dict.__iter__(self))

    def items(self) -> Any:
        return _counted(dict.items(self))

    def keys(self) -> Any:
        return _counted(dict.keys(self))

    def values(self) -> Any:
        return _counted(dict.values(self))


def _wrap(value: Any) -> Any:
    if isinstance(value, Mapping):
        return _Dict({k: _wrap(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return _List(_wrap(v) for v in value)
    return value


def _safe_range(*args: int) -> Iterator[int]:
    r = range(*args)
    if len(r) > MAX_RANGE:
        raise SecurityError(f"range larger than {MAX_RANGE}")
    return _counted(r)


class _Environment(ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "**" and isinstance(right, int | float) and abs(right) > MAX_POWER:
            raise SecurityError(f"exponent larger than {MAX_POWER}")
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, str | list | tuple) and isinstance(times, int) \
                        and len(seq) * times > MAX_OUTPUT_CHARS:
                    raise SecurityError("repetition builds a value larger than the output limit")
        return super().call_binop(context, operator, left, right)


_ENV = _Environment(undefined=StrictUndefined, autoescape=False, keep_trailing_newline=False)
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
    """Render ``source`` with ``data``; unsafe access, undefined names and overruns are refused."""
    template = compile_template(source)
    token = _budget.set([float(MAX_ITERATIONS), time.monotonic() + MAX_RENDER_S])
    parts: list[str] = []
    size = 0
    try:
        for chunk in template.generate(**_wrap(data)):
            size += len(chunk)
            if size > MAX_OUTPUT_CHARS:
                raise InvalidInput(f"template output longer than {MAX_OUTPUT_CHARS} characters")
            _charge()
            parts.append(chunk)
    except SecurityError as exc:
        raise InvalidInput(f"template refused by the sandbox: {exc}") from None
    except UndefinedError as exc:
        raise InvalidInput(f"template uses an undefined value: {exc.message}") from None
    except (TypeError, ValueError, ArithmeticError, LookupError, OverflowError, RecursionError) as exc:
        raise InvalidInput(f"template failed: {type(exc).__name__}: {exc}") from None
    finally:
        _budget.reset(token)
    return "".join(parts)
