"""The slot guard: two prompts may share an answer only if the values in them agree.

"refund order 123" and "refund order 456" embed almost identically; a cosine threshold cannot
tell them apart, so every fuzzy or semantic candidate passes through here. Values, not
characters: both prompts go through ``lastline.rules.find_entities`` and the *normalized* values
are compared by kind — "5000元", "五千元" and "¥5,000" agree, "2 tickets" and "3 tickets" do not.

Kinds compared (a multiset per kind must be equal):
  ``amount``  numbers, ordinals and money amounts (currencies compared when both name one)
  ``percent`` percentages
  ``when``    dates, datetimes, times and durations (relative dates resolved at one reference time)
  ``ident``   emails, URLs, phone numbers, ID-card and order numbers
  ``code``    version numbers (4.4.4 = 4.4.04), compared component by component

Digit runs no entity claims (model numbers such as ``mi3``, ``ds88``) count as amounts, so
"xiaomi mi3" and "xiaomi mi4" differ; list markers such as "1) … 2) …" outside parentheses are
numbering, not values, and are skipped. A lone English ``one`` is no value either: it counts as much as
the article does ("buy one ticket" and "buy a ticket" agree; "two tickets" still differ by the two).

English negation ("not", "n't", "never", …) must agree as well. Chinese negation anywhere in
the text does not take part (不/没/无 occur in a third of true paraphrases of banking questions,
and the whole-text check blocked far more right answers than wrong ones).

Where the two prompts differ, and only there (``_diff.changes``), questions that ask something
else are kept apart too: a word replaced by its opposite, Chinese negation added or dropped, a
direction reversed (``_polarity``), and a place, person, organisation, product or language
replaced by another (``_names``), and a lone swapped English word no synonym list vouches for
(``_substitution``: the rule that generalises beyond the lists).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from lastline import normalize_text
from lastline.rules import find_entities

from ._diff import changes, small_edit
from ._names import name_clash, swapped_name_zh, swapped_noun_zh
from ._polarity import antonym_clash, negation_inserted_zh, negation_zh_clash, role_swap
from ._substitution import swapped_stretch_zh, swapped_word_en, unproven_swap

__all__ = ["SlotGuard", "Slots", "extract_slots", "slot_guard_ok"]

_KIND = {
    "number": "amount", "ordinal": "amount", "money": "amount",
    "percent": "percent",
    "date": "when", "datetime": "when", "time": "when", "duration": "when",
    "daterange": "when", "timerange": "when", "set": "when",
    "email": "ident", "url": "ident", "phone": "ident", "id_card": "ident", "order_id": "ident",
}
_ZH_NEGATION = re.compile(r"[不没无未别非]")
# n't with a straight or a curly apostrophe (don't / don’t)
_EN_NEGATION = re.compile(r"\b(?:not|never|no|nobody|nothing|cannot|none|neither|nor)\b|n['’]t\b", re.I)


@dataclass(frozen=True)
class Slots:
    """The comparable values of one prompt."""

    values: tuple[tuple[str, str], ...]  # sorted (kind, normalized value) pairs, repeats kept
    currencies: frozenset[str]
    negated_en: bool

    def by_kind(self) -> dict[str, Counter[str]]:
        out: dict[str, Counter[str]] = {}
        for kind, value in self.values:
            out.setdefault(kind, Counter())[value] += 1
        return out


def _decimal(value: Any) -> str:
    try:
        number = Decimal(str(value).replace(",", "").strip())
    except (InvalidOperation, ValueError):
        return str(value).strip().lower()
    if not number.is_finite():
        return str(number)
    text = format(number.normalize(), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


#: Lone characters the extractor reads as numbers that are, in running text, nearly always words:
#: 一 (这一关, 一下), 百 (百度), 千 / 万 (千万别), 零 (零钱), 陆 (登陆). A real amount or count
#: keeps them inside a longer numeral (一万, 五百) or next to digits, which still compares.
_WORDLIKE_NUMERALS = frozenset("一百千万亿零陆")


def _normalize(entity: Any) -> tuple[str, str, str | None] | None:
    kind = _KIND.get(entity.type)
    if kind is None:
        return None
    if entity.type == "number" and entity.text in _WORDLIKE_NUMERALS:
        return None
    value, currency = entity.value, None
    if entity.type == "money" and isinstance(value, dict):
        currency = value.get("currency")
        value = value.get("amount")
    if kind in ("amount", "percent"):
        return kind, _decimal(value), currency
    return kind, str(value).strip().lower(), None


#: A version number (4.4.4, 6.3.7): compared as a whole, component by component.
_VERSION = re.compile(r"(?<![\d.])\d{1,4}(?:\.\d{1,4}){2,}(?!\.?\d)")
#: "two steps: 1) … 2) …": a list marker with a lone closing parenthesis numbers items, it is no value.
_LIST_MARKER = re.compile(r"(?:^|(?<=[\s:;,.?!，：；。、]))\d{1,2}\)(?!\d)")
#: A digit run no entity claimed (model numbers and codes: mi3, ds88, 0x80073cf6).
_DIGITS = re.compile(r"\d+")

# One fixed reference time per process keeps "tomorrow" equal to "tomorrow" across calls.
_REFERENCE = datetime(2000, 1, 3, 12, 0, 0)


@lru_cache(maxsize=65_536)
def extract_slots(text: str) -> Slots:
    """The values in ``text`` (cached: a candidate's prompt is checked again and again).

    Extraction runs on the matching form of the text (NFKC, spaces between CJK removed), so
    full-width digits and "借 五 千 元" read the same as their plain forms.
    """
    matched = normalize_text(text)
    try:
        entities = find_entities(matched, reference_time=_REFERENCE)
    except Exception:  # the contract says never raise; if it does, compare nothing rather than crash
        entities = []
    values: list[tuple[str, str]] = []
    currencies: set[str] = set()
    versions = [(m.start(), m.end()) for m in _VERSION.finditer(matched)]
    for start, end in versions:
        values.append(("code", ".".join(str(int(part)) for part in matched[start:end].split("."))))
    skipped = versions + [
        (m.start(), m.end()) for m in _LIST_MARKER.finditer(matched)
        if matched.count("(", 0, m.start()) <= matched.count(")", 0, m.start())  # not "(i am 13)"
    ]
    if skipped:
        entities = [e for e in entities if not any(e.start < b and a < e.end for a, b in skipped)]
    claimed = bytearray(len(matched))
    for start, end in [*((e.start, e.end) for e in entities), *skipped]:
        claimed[start:end] = b"\x01" * (end - start)
    for m in _DIGITS.finditer(matched):
        if not claimed[m.start()]:  # ds88, j7, 0x…cf6: digits glued to letters, which no entity took
            values.append(("amount", _decimal(m.group())))
    for entity in entities:
        if entity.type == "number" and entity.text.lower() == "one":
            continue  # as much a value as the article: "one ticket" and "a ticket" agree, "two tickets" not
        norm = _normalize(entity)
        if norm is None:
            continue
        kind, value, currency = norm
        values.append((kind, value))
        if currency:
            currencies.add(str(currency).upper())
    return Slots(tuple(sorted(values)), frozenset(currencies), bool(_EN_NEGATION.search(text)))


_STRICT_KINDS = frozenset({"ident"})


@dataclass(frozen=True)
class SlotGuard:
    """The value-agreement check; the switches exist so a bench can measure each rule's worth.

    ``one_sided`` decides a kind present in one prompt only: ``"strict"`` (default) blocks it,
    ``"both"`` compares a kind only when both prompts carry it (identifiers stay strict). Measured
    (bench/slot_guard_rules.py): "both" lets 1.4–1.8% of Chinese value-changed variants through
    at the shipped threshold (一个 → 两个: the lone 一 is not a value, 两 is), "strict" 0–0.5%,
    while costing ≤0.4 points of duplicate hit rate at QQP/LCQMC thresholds (≈1 point on BQ).
    """

    values: bool = True
    one_sided: str = "strict"
    negation_en: bool = True
    negation_zh: bool = False  # measured, off: see the module docstring
    antonyms: bool = True
    changed_negation_zh: bool = True
    role_swaps: bool = True
    names: bool = True
    #: Chinese names compared on the differing stretches taken whole, out of context
    #: (``_names.swapped_name_zh``: 微信 / 微博 where jieba cut 「和微博」 as one word).
    names_zh_spans: bool = True
    swapped_nouns_zh: bool = True
    #: Chinese opposites bridged from CC-CEDICT glosses and WordNet antonyms (升高 / 降低), on top
    #: of the hand-written lists.
    derived_zh: bool = True
    #: English words made opposite by an affix WordNet's antonyms show (``_polarity.affix_opposite``:
    #: unsafe / safe, overpaid / underpaid, careful / careless, over / under), beyond any list.
    affixes_en: bool = True
    #: Chinese: a verb against the one that undoes it, from CC-CEDICT glosses (申请 / 撤销, 开通 / 注销).
    reversals_zh: bool = True
    #: Chinese: opposite characters learned from opposite words that differ in them alone (最好 / 最差
    #: → 好 / 差), composed inside any word (质量好 / 质量差, 贴吧里 / 贴吧外).
    composed_zh: bool = True
    #: Chinese negation counts only when it is all that differs between the content words; the
    #: looser rule (any negation in the changed words that attaches to a shared word) vetoed more
    #: labelled BQ duplicates than it saved.
    negation_zh_alone: bool = True
    #: Chinese negation found character by character: the texts are equal but for negators one side
    #: adds (``_polarity.negation_inserted_zh``: 谁有 / 谁没有 where jieba cut 斗 / 罗 against 斗罗).
    negation_zh_chars: bool = True
    #: English: one content word swapped in place for another that nothing shows to stand for it
    #: (``_substitution.swapped_word_en``: real / fake, install / remove, speedy / slow) — what no
    #: list of opposites or names holds. Above the own-2% threshold it vetoes 3 labelled duplicates
    #: for 7 non-duplicates on QQP val, none of either on LCQMC, BQ and ATEC (docs/benchmarks.md).
    swapped_word_en: bool = True
    #: The order-free minimal-edit rule (``_substitution.unproven_swap``): one swapped content word
    #: anywhere must be shown to be a paraphrase. Off by default in both languages: on the labelled
    #: duplicates above the own-2% threshold it vetoed 18 QQP duplicates for 9 non-duplicates saved,
    #: 31 for 8 on LCQMC and 73 for 2 on BQ (docs/benchmarks.md) — paraphrases swap words no synonym
    #: list vouches for, and reword around the swapped one.
    swaps_en: bool = False
    swaps_zh: bool = False
    #: Chinese: one changed stretch whose content words share no character, negation or gloss
    #: (``_substitution.swapped_stretch_zh``: 微信 / 支付宝 however jieba tags them). Off by default:
    #: above the own-2% threshold it vetoed 12 BQ and 2 LCQMC duplicates and no non-duplicate.
    stretch_zh: bool = False
    #: antonyms and Chinese negation are judged only on small edits (``_diff.small_edit``);
    #: 0 judges every pair. Measured on BQ/LCQMC duplicates: see docs/benchmarks.md.
    polarity_min_overlap: float = 0.5

    def _kinds(self, sa: Slots, sb: Slots) -> str | None:
        ka, kb = sa.by_kind(), sb.by_kind()
        for kind in sorted(set(ka) | set(kb)):
            a, b = ka.get(kind), kb.get(kind)
            if a == b:
                continue
            if a is None or b is None:
                if self.one_sided == "strict" or kind in _STRICT_KINDS:
                    return kind
                continue
            return kind
        if sa.currencies and sb.currencies and sa.currencies != sb.currencies:
            return "currency"
        return None

    def why(self, a: str, b: str) -> str | None:
        """The first rule that fails (``amount``, ``when``, ``negation``, ``antonym``, ``name`` …);
        None when the pair passes."""
        sa, sb = extract_slots(a), extract_slots(b)
        if self.values and (kind := self._kinds(sa, sb)):
            return kind
        if self.negation_en and sa.negated_en != sb.negated_en:
            return "negation"
        if self.negation_zh and bool(_ZH_NEGATION.search(a)) != bool(_ZH_NEGATION.search(b)):
            return "negation_zh"
        return self._asks_else(a, b)

    def _asks_else(self, a: str, b: str) -> str | None:
        """``antonym``, ``negation_zh``, ``role_swap``, ``name``, ``noun_zh`` or ``swap`` when the changed
        words ask something else."""
        if not (self.antonyms or self.changed_negation_zh or self.role_swaps or self.names or self.names_zh_spans
                or self.swapped_nouns_zh or self.swapped_word_en or self.swaps_en or self.swaps_zh
                or self.stretch_zh):
            return None
        ta, tb, diff = changes(a, b)
        if not diff:
            return None
        small = small_edit(ta, tb, diff, self.polarity_min_overlap)
        if small and self.antonyms and antonym_clash(ta, tb, diff, self.derived_zh, self.affixes_en, self.reversals_zh,
                                                            self.composed_zh):
            return "antonym"
        if small and self.changed_negation_zh and negation_zh_clash(ta, tb, diff, alone=self.negation_zh_alone):
            return "negation_zh"
        if self.changed_negation_zh and self.negation_zh_chars and negation_inserted_zh(a, b):
            return "negation_zh"
        if self.role_swaps and role_swap(ta, tb):
            return "role_swap"
        if self.names and name_clash(ta, tb, diff):
            return "name"
        if self.names_zh_spans and swapped_name_zh(a, b):
            return "name"
        if self.swapped_nouns_zh and swapped_noun_zh(ta, tb, diff):
            return "noun_zh"
        if self.swapped_word_en and swapped_word_en(ta, tb, diff):
            return "swap"
        if (self.swaps_en or self.swaps_zh) and unproven_swap(ta, tb, chinese=self.swaps_zh) \
                and (self.swaps_en or any(t.tag != "eng" for t in (*ta, *tb))):
            return "swap"
        if self.stretch_zh and swapped_stretch_zh(ta, tb, diff, 3):
            return "stretch_zh"
        return None

    def ok(self, a: str, b: str) -> bool:
        """True when ``a`` and ``b`` may share one answer as far as their values go."""
        return self.why(a, b) is None

    def warm(self) -> None:
        """Load now what the checks load on first use: the word lists and jieba's dictionary.

        Why: each is read on the first pair that needs it (jieba's dictionary alone ≈1 s of CPU), so
        a server that has just started would pay it inside its first lookups — at the start of an outage,
        the worst moment. The pairs below differ in a way that reaches each rule (a changed value, an
        opposite, a name, a Chinese word swap), in English and in Chinese.
        """
        for a, b in _WARM_PAIRS:
            self.why(a, b)


_WARM_PAIRS = (
    ("how do I open an account on May 3", "how do I close an account on May 4"),
    ("is it cheaper to fly to Paris", "is it cheaper to fly to London"),
    ("what is the best way to learn Python", "what is the worst way to learn Python"),
    ("how do I fix my car quickly", "how do I repair my car quickly"),
    ("what is a good gift for my friend", "what is a good present for my friend"),
    ("how do I cook rice in a pan", "how do I cook pasta in a pan"),
    ("is this old bridge safe", "is this old bridge unsafe"),
    ("微信支付怎么开通", "支付宝支付怎么关闭"),
    ("借款5000元利率上调了吗", "借款3000元利率下调了吗"),
    ("怎么用微信付款", "怎么用微博付款"),
    ("手机银行怎么转账", "网上银行怎么转账"),
)

_DEFAULT = SlotGuard()


def slot_guard_ok(a: str, b: str) -> bool:
    """The default guard: values must agree, and so must English negation."""
    return _DEFAULT.ok(a, b)
