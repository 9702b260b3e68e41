"""User patterns run on google-re2: linear time, so no pattern can backtrack catastrophically.

re2 lacks look-around and back-references. A pattern that needs them compiles with the ``regex``
module instead and every search there carries a hard timeout (``DEFAULT_TIMEOUT_S``); a search
that runs out of time counts as "no match" and is reported, never hangs the service.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import re2
import regex

__all__ = ["DEFAULT_TIMEOUT_S", "PatternError", "PatternTimeout", "UserPattern", "compile_pattern"]

DEFAULT_TIMEOUT_S = 0.2
MAX_PATTERN_CHARS = 2000

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False
_OPTIONS_I = re2.Options()
_OPTIONS_I.log_errors = False
_OPTIONS_I.case_sensitive = False


class PatternError(ValueError):
    """A pattern that neither engine accepts."""


class PatternTimeout(RuntimeError):
    """A fallback-engine search ran past its time limit."""


@dataclass(frozen=True)
class Found:
    """One match: overall span plus named groups (value, span) that took part."""

    start: int
    end: int
    text: str
    groups: dict[str, tuple[str, int, int]]


class UserPattern:
    """A compiled user pattern; ``engine`` is ``"re2"`` or ``"regex"`` (timed)."""

    def __init__(self, pattern: str, *, ignore_case: bool = False, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        if len(pattern) > MAX_PATTERN_CHARS:
            raise PatternError(f"pattern longer than {MAX_PATTERN_CHARS} characters")
        self.pattern = pattern
        self.timeout_s = timeout_s
        try:
            self._re2 = re2.compile(pattern, _OPTIONS_I if ignore_case else _OPTIONS)
            self.engine = "re2"
            self._names = dict(self._re2.groupindex)
        except re2.error as exc:
            try:
                self._rx = regex.compile(pattern, regex.IGNORECASE if ignore_case else 0)
            except regex.error as exc2:
                raise PatternError(f"invalid pattern: {exc2}") from exc
            self.engine = "regex"
            self._names = dict(self._rx.groupindex)

    def finditer(self, text: str) -> Iterator[Found]:
        """Matches in order; raises :class:`PatternTimeout` if the fallback engine runs out of time."""
        if self.engine == "re2":
            for m in self._re2.finditer(text):
                yield self._found(m.start(), m.end(), m.group(), m.span, m.group)
            return
        try:
            matches = list(self._rx.finditer(text, timeout=self.timeout_s))
        except TimeoutError as exc:
            raise PatternTimeout(f"pattern ran past {self.timeout_s}s: {self.pattern[:60]}") from exc
        for m in matches:
            yield self._found(m.start(), m.end(), m.group(), m.span, m.group)

    def search(self, text: str) -> Found | None:
        return next(iter(self.finditer(text)), None)

    def _found(self, start: int, end: int, whole: str, span_of: object, group_of: object) -> Found:
        groups: dict[str, tuple[str, int, int]] = {}
        for name, idx in self._names.items():
            s, e = span_of(idx)  # type: ignore[operator]
            if s is not None and s >= 0:
                groups[name] = (group_of(idx), s, e)  # type: ignore[operator]
        return Found(start, end, whole, groups)


def compile_pattern(pattern: str, *, ignore_case: bool = False) -> UserPattern:
    """Compile on re2, falling back to the timed ``regex`` engine only for features re2 lacks."""
    return UserPattern(pattern, ignore_case=ignore_case)
