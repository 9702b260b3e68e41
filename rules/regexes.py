"""User patterns run on google-re2: linear time, so no pattern can backtrack catastrophically.

re2 lacks look-around and back-references. A pattern that needs them compiles with the ``regex``
module instead and every search there carries a hard timeout (``DEFAULT_TIMEOUT_S``); a search
that runs out of time counts as "no match" and is reported, never hangs the service.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import re2
import regex


def alternation(words: Iterable[str]) -> str:
    """A regex alternation of ``words``, longest first, so ``大前天`` wins over ``前天`` and
    ``September`` over ``Sep``: a regex alternation takes the first branch that matches."""
    return "|".join(sorted(words, key=len, reverse=True))

__all__ = ["DEFAULT_TIMEOUT_S", "PatternError", "PatternTimeout", "UserPattern", "alternation", "compile_pattern"]

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
            options = _OPTIONS_I if ignore_case else _OPTIONS
            self._re2 = re2.compile(pattern, options)
            # The same program over UTF-8 bytes (re2 reads bytes as UTF-8 too): matching the bytes of
            # a text encoded once is half the cost of re2's str path, which encodes the text again
            # for every pattern and maps every offset back through Python code.
            self._re2_bytes = re2.compile(pattern.encode("utf-8"), options)
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
            data = _utf8(text)
            chars = _CharOffsets(data)
            pos = 0
            while pos <= len(data):
                m = self._re2_bytes.search(data, pos)
                if m is None:
                    return
                yield self._found_bytes(text, chars, m)
                pos = m.end()
                if m.end() == m.start():  # an empty match: step one character, never into one
                    pos += 1
                    while pos < len(data) and data[pos] & 0xC0 == 0x80:
                        pos += 1
            return
        try:
            matches = list(self._rx.finditer(text, timeout=self.timeout_s))
        except TimeoutError as exc:
            raise PatternTimeout(f"pattern ran past {self.timeout_s}s: {self.pattern[:60]}") from exc
        for m in matches:
            yield self._found(m.start(), m.end(), m.group(), m.span, m.group)

    def search(self, text: str) -> Found | None:
        return next(iter(self.finditer(text)), None)

    def _found_bytes(self, text: str, chars: _CharOffsets, m: Any) -> Found:
        """A bytes match as a :class:`Found` over ``text`` (character offsets, ``str`` groups)."""
        start, end = chars.at(m.start()), chars.at(m.end())
        spans = sorted((s, e, name) for name, idx in self._names.items() for s, e in [m.span(idx)] if s >= 0)
        groups: dict[str, tuple[str, int, int]] = {}
        for s, e, name in spans:
            cs, ce = chars.at(s), chars.at(e)
            groups[name] = (text[cs:ce], cs, ce)
        return Found(start, end, text[start:end], groups)

    def _found(self, start: int, end: int, whole: str, span_of: object, group_of: object) -> Found:
        groups: dict[str, tuple[str, int, int]] = {}
        for name, idx in self._names.items():
            s, e = span_of(idx)  # type: ignore[operator]
            if s is not None and s >= 0:
                groups[name] = (group_of(idx), s, e)  # type: ignore[operator]
        return Found(start, end, whole, groups)


_LAST_ENCODED: tuple[str, bytes] = ("", b"")


def _utf8(text: str) -> bytes:
    """``text`` as UTF-8, kept for the last text seen: one extraction runs every pattern of a pack over
    one text (a tuple swap is atomic, so threads at worst encode twice)."""
    global _LAST_ENCODED
    last = _LAST_ENCODED
    if last[0] is text:
        return last[1]
    # A lone surrogate (no UTF-8 form) becomes one "?" byte: offsets still map one to one.
    data = text.encode("utf-8", "replace")
    _LAST_ENCODED = (text, data)
    return data


class _CharOffsets:
    """UTF-8 byte offsets of one text → character offsets, cheapest when asked in increasing order
    (as a match's start, its groups and the next match are): each step decodes only the bytes between."""

    __slots__ = ("_ascii", "_byte", "_char", "_data")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._ascii = data.isascii()
        self._byte = 0
        self._char = 0

    def at(self, offset: int) -> int:
        if self._ascii:
            return offset
        if offset < self._byte:
            self._byte = self._char = 0
        self._char += len(self._data[self._byte:offset].decode("utf-8"))
        self._byte = offset
        return self._char


def compile_pattern(pattern: str, *, ignore_case: bool = False) -> UserPattern:
    """Compile on re2, falling back to the timed ``regex`` engine only for features re2 lacks."""
    return UserPattern(pattern, ignore_case=ignore_case)
