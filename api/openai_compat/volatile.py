"""Volatile parts of a system prompt, masked before the prompt is fingerprinted.

Agents template their system prompts: "Today is 2026-12-01", "Current time: 14:05 UTC",
"request_id=4f1c…". Fingerprinted as they are, every request is its own cache partition and the
cache never hits. :func:`mask_volatile` replaces dates, times, Unix timestamps, UUIDs and labelled
request/trace/session ids with placeholders, so two requests under the same agent template share a
partition. Values that make answers differ per user (an account number, an order id) are left alone
unless labelled as a request id: they belong in the user message, where the slot guard compares
them, or in a tenant policy with ``system: exact``.
"""

from __future__ import annotations

import re

__all__ = ["mask_volatile"]

_MONTHS = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
           r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_DAYS = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\.?"
_ID_LABEL = r"(?:request|req|trace|span|correlation|session|run|conversation|message|msg)[ _-]?id"

# Order matters: a datetime is masked whole before its date or time part could be.
_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(rf"\b{_ID_LABEL}\b\s*[:=#]?\s*[\"']?[A-Za-z0-9][A-Za-z0-9_.:-]{{3,}}", re.I), "<request-id>"),
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I), "<uuid>"),
    (re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b"), "<date>"),
    (re.compile(r"\d{4}\s*年\s*\d{1,2}\s*月\s*\d{1,2}\s*[日号]"), "<date>"),
    (re.compile(r"\b\d{1,2}/\d{1,2}/\d{2,4}\b"), "<date>"),
    (re.compile(rf"\b(?:{_DAYS},?\s+)?{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b", re.I), "<date>"),
    (re.compile(rf"\b(?:{_DAYS},?\s+)?\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTHS},?\s+\d{{4}}\b", re.I), "<date>"),
    (re.compile(rf"\b{_DAYS}(?=[\s,.;]|$)", re.I), "<weekday>"),
    (re.compile(r"\b\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s*[ap]\.?m\.?)?(?:\s*(?:UTC|GMT|Z))?", re.I), "<time>"),
    (re.compile(r"\b1\d{9}(?:\.\d+)?\b|\b1\d{12}\b"), "<timestamp>"),
)


def mask_volatile(text: str) -> str:
    """``text`` with dates, times, timestamps, UUIDs and labelled request ids replaced by placeholders."""
    for pattern, placeholder in _RULES:
        text = pattern.sub(placeholder, text)
    return text
