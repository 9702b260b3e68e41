"""Repair the malformed JSON a model returned — structurally only, never by guessing values.

Fixed: code fences, prose before and after, trailing commas, single-quoted strings, unquoted keys,
Python literals (True/False/None), a missing comma between two values, and missing closing
brackets at the end of a truncated answer. Refused with :class:`InvalidInput`: a key without a
value (``{"a": }``), an unterminated string, NaN/Infinity, or anything that is not JSON-shaped.

Why not ``json-repair`` (PyPI, MIT, well kept): it was measured on these cases and it fills gaps
with invented values — ``{"a": }`` → ``{"a": ""}``, ``{"a": 1, "b"}`` drops ``b``, an unterminated
string is silently closed, plain prose becomes ``""`` — which is exactly what must not happen here.
"""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema

from lastline.errors import InvalidInput

__all__ = ["MAX_JSON_CHARS", "repair_json"]

MAX_JSON_CHARS = 1_000_000
MAX_DEPTH = 200  # deeper nesting is refused rather than handed to a recursive parser
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)(?:```|$)", re.DOTALL)
_TOKEN = re.compile(
    r"""\s*(?:(?P<dq>"(?:[^"\\]|\\.)*")|(?P<sq>'(?:[^'\\]|\\.)*')|(?P<num>-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)"""
    r"""|(?P<lit>true|false|null|True|False|None)|(?P<ident>[A-Za-z_$][\w$-]*)|(?P<p>[{}\[\]:,]))""",
    re.DOTALL,
)
_LITERALS = {"true": "true", "false": "false", "null": "null", "True": "true", "False": "false", "None": "null"}


def repair_json(text: str, schema: dict[str, Any] | None = None) -> Any:
    """The JSON value in ``text``, repaired structurally and validated against ``schema``."""
    if not isinstance(text, str):
        raise InvalidInput("repair_json expects a string")
    if len(text) > MAX_JSON_CHARS:
        raise InvalidInput(f"JSON text longer than {MAX_JSON_CHARS} characters")
    candidate = _unfence(text).strip()
    try:
        value = json.loads(candidate, parse_constant=_no_constants)
    except RecursionError:
        raise InvalidInput(f"JSON nested deeper than {MAX_DEPTH} levels") from None
    except (json.JSONDecodeError, ValueError):
        rebuilt = _rebuild(_json_span(candidate))
        try:
            value = json.loads(rebuilt, parse_constant=_no_constants)
        except RecursionError:
            raise InvalidInput(f"JSON nested deeper than {MAX_DEPTH} levels") from None
        except (json.JSONDecodeError, ValueError) as exc:
            raise InvalidInput(f"cannot repair JSON without guessing: {exc}") from None
    if schema is not None:
        _validate(value, schema)
    return value


def _no_constants(name: str) -> Any:
    raise InvalidInput(f"{name} is not a JSON value")


def _unfence(text: str) -> str:
    m = _FENCE.search(text)
    return m.group(1) if m and ("{" in m.group(1) or "[" in m.group(1)) else text


def _json_span(text: str) -> str:
    starts = [i for i in (text.find("{"), text.find("[")) if i != -1]
    if not starts:
        raise InvalidInput("no JSON object or array found in the text")
    return text[min(starts):]


def _rebuild(text: str) -> str:
    """Re-emit ``text`` token by token as strict JSON, closing what a truncation left open."""
    out: list[str] = []
    stack: list[str] = []
    pos = 0
    last = ""  # kind of the last emitted token: value, key, colon, comma, open
    while stack or not out:
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            rest = text[pos:].strip()
            if not rest or not stack:
                break
            if rest[0] in "\"'":
                raise InvalidInput(f"unterminated string at character {pos}; refusing to guess its end")
            raise InvalidInput(f"cannot repair JSON at character {pos}: {rest[:20]!r}")
        pos = m.end()
        kind = m.lastgroup
        tok = m.group(kind) if kind else ""
        if kind == "p":
            if tok in "{[":
                if last == "key":
                    raise InvalidInput(f"a key has no ':' before character {pos}; refusing to guess")
                if last == "value":
                    out.append(",")  # a missing comma between two values
                stack.append("}" if tok == "{" else "]")
                if len(stack) > MAX_DEPTH:
                    raise InvalidInput(f"JSON nested deeper than {MAX_DEPTH} levels")
                out.append(tok)
                last, _expect_value = "open", True
            elif tok in "}]":
                if not stack or stack[-1] != tok:
                    raise InvalidInput(f"unbalanced {tok!r} at character {pos}")
                if last == "colon":
                    raise InvalidInput(f"a key has no value before {tok!r}; refusing to guess one")
                if last == "key":
                    raise InvalidInput("a key has no value; refusing to guess one")
                if out and out[-1] == ",":
                    out.pop()  # trailing comma
                out.append(stack.pop())
                last = "value"
            elif tok == ":":
                if last != "key":
                    raise InvalidInput(f"unexpected ':' at character {pos}")
                out.append(":")
                last = "colon"
            else:  # ','
                if last in ("open", "comma"):
                    continue
                if last == "colon":
                    raise InvalidInput("a key has no value; refusing to guess one")
                out.append(",")
                last = "comma"
            continue
        if kind == "ident" and tok not in _LITERALS:
            if not (stack and stack[-1] == "}" and last in ("open", "comma", "value")):
                raise InvalidInput(f"bare word {tok!r} is not a JSON value")
            string = json.dumps(tok)
        elif kind == "lit" or kind == "ident":
            string = _LITERALS[tok]
        elif kind == "sq":
            string = json.dumps(_unquote_single(tok))
        else:
            string = tok
        in_object = bool(stack) and stack[-1] == "}"
        is_key = in_object and last in ("open", "comma", "value")
        if last == "key":
            raise InvalidInput(f"a key has no ':' before character {pos}; refusing to guess")
        if last == "value":
            out.append(",")  # missing comma
        if is_key and kind not in ("dq", "sq", "ident"):
            raise InvalidInput(f"object key must be a string at character {pos}")
        out.append(string)
        last = "key" if is_key else "value"
    if last == "colon" or last == "key":
        raise InvalidInput("the text ends after a key; refusing to guess its value")
    while stack:
        if out and out[-1] == ",":
            out.pop()
        out.append(stack.pop())
    return "".join(out)


def _unquote_single(tok: str) -> str:
    body = tok[1:-1].replace("\\'", "'").replace('"', '\\"')
    return str(json.loads(f'"{body}"'))


def _validate(value: Any, schema: dict[str, Any]) -> None:
    try:
        validator = jsonschema.Draft202012Validator(schema)
    except Exception as exc:
        raise InvalidInput(f"schema is not a valid JSON Schema: {exc}") from None
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise InvalidInput(f"schema is not a valid JSON Schema: {exc.message}") from None
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    if errors:
        err = errors[0]
        where = "/".join(str(p) for p in err.absolute_path) or "(root)"
        raise InvalidInput(f"repaired JSON does not match the schema at {where}: {err.message}")
