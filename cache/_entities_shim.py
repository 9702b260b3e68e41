"""Temporary stand-in for ``lastline.rules.find_entities`` until the rules tier lands.

Same contract (``Entity`` with type/text/start/end/value), far less coverage: Arabic numbers,
simple Chinese numerals, emails, URLs and order-like IDs. Deleted once the real one exists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

__all__ = ["Entity", "find_entities"]


@dataclass(frozen=True)
class Entity:
    type: str
    text: str
    start: int
    end: int
    value: Any


_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"https?://\S+|www\.\S+")
_ID = re.compile(r"\b(?=[A-Za-z]*\d)(?=\d*[A-Za-z])[A-Za-z0-9-]{5,}\b")
_NUM = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
_ZH_DIGIT = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7,
             "八": 8, "九": 9}
_ZH_UNIT = {"十": 10, "百": 100, "千": 1000, "万": 10_000, "亿": 100_000_000}
_ZH_NUM = re.compile(r"[零〇一二两三四五六七八九十百千万亿]{2,}|[二两三四五六七八九十]")


def _zh_value(text: str) -> int:
    total, section, digit = 0, 0, 0
    for ch in text:
        if ch in _ZH_DIGIT:
            digit = _ZH_DIGIT[ch]
        elif ch in ("万", "亿"):
            section = (section + digit) * _ZH_UNIT[ch]
            total += section
            section, digit = 0, 0
        else:
            section += (digit or 1) * _ZH_UNIT[ch]
            digit = 0
    return total + section + digit


def find_entities(text: str, *, reference_time: Any = None, types: Any = None) -> list[Entity]:
    out: list[Entity] = []
    taken: list[tuple[int, int]] = []

    def free(m: re.Match[str]) -> bool:
        return all(m.end() <= a or m.start() >= b for a, b in taken)

    for kind, pattern in (("email", _EMAIL), ("url", _URL), ("order_id", _ID)):
        for m in pattern.finditer(text):
            if free(m):
                out.append(Entity(kind, m.group(), m.start(), m.end(), m.group().lower()))
                taken.append(m.span())
    for m in _NUM.finditer(text):
        if free(m):
            out.append(Entity("number", m.group(), m.start(), m.end(), m.group().replace(",", "")))
    for m in _ZH_NUM.finditer(text):
        out.append(Entity("number", m.group(), m.start(), m.end(), str(_zh_value(m.group()))))
    return sorted(out, key=lambda e: e.start)
