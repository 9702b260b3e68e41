"""User patterns on re2: matches over the UTF-8 bytes of a text read back as the text's own characters."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lastline.rules.regexes import compile_pattern

#: Patterns both engines read alike (no ``\b``, ``\w`` or bare ``$``: re2 classes are ASCII, its ``$`` is the very end).
PATTERNS = [
    r"(?P<value>\d+)\s*元", r"(?P<a>a)|(?P<b>中)", r"x*", r"(?P<v>[^|\n]{1,3})", r"(?m)^", r"文(?P<g>字)?",
    r"(?:金\s*额)[:：]?\s*(?P<value>[^\n|；;。]{1,8})", r"(?m)$", r"(?P<x>(?P<y>[a-z中])[a-z文])",
]
TEXT = st.text(alphabet=st.sampled_from("ab x中文字元金额:：|\n;；。12é\U0001f600\ud800"), max_size=40)


@pytest.mark.parametrize("pattern", PATTERNS)
@given(text=TEXT)
def test_re2_matches_are_python_re_matches_in_characters(pattern: str, text: str) -> None:
    compiled = compile_pattern(pattern)
    assert compiled.engine == "re2"
    ours = [(f.start, f.end, f.text, f.groups) for f in compiled.finditer(text)]
    theirs = [(m.start(), m.end(), m.group(),
               {n: (m.group(n), *m.span(n)) for n in m.re.groupindex if m.span(n)[0] >= 0})
              for m in re.finditer(pattern, text)]
    assert ours == theirs


def test_one_text_through_many_patterns_keeps_each_texts_offsets() -> None:
    first, second = "金额：伍拾元", "ab 金额: 12"
    pattern = compile_pattern(r"金额[:：]\s*(?P<value>\S+)")
    assert [f.groups["value"] for f in pattern.finditer(first)] == [("伍拾元", 3, 6)]
    assert [f.groups["value"] for f in pattern.finditer(second)] == [("12", 7, 9)]
    assert [f.groups["value"] for f in pattern.finditer(first)] == [("伍拾元", 3, 6)]
