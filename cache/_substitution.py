"""Minimal edits: a question that differs from another by one or two swapped content words asks
the same thing only when each swap is shown to be a paraphrase.

The antonym and name rules catch the opposites and names their lists hold; a question with
"best" swapped for "worst" is caught, one with 新 swapped for 老 or "Lumbee" for "Pueblo" is not,
and a list never holds them all. This rule turns the burden round. When two prompts share their
content words but for one or two on each side (function words, punctuation and case aside, in
any order), the swapped words must be shown to stand for each other, or the pair is vetoed:

- English: the same lemma (``sold`` / ``sell``), a WordNet synonym group (synset, adjective
  cluster or pertainym: ``quick`` / ``fast``, ``quickly`` / ``quick``), one a direct kind of the
  other (``girl`` / ``woman``, ``reduce`` / ``decrease``), derivationally related forms (``drivers``
  / ``driving``), one word a prefix of the other (``develop`` / ``development``, ``India`` /
  ``Indian``), one stem with two endings (``addictive`` / ``addicting``; never ``-less``:
  ``meaning`` / ``meaningless``), or a typo as the fuzzy layer reads one (``colour`` / ``color``,
  ``rest`` / ``reset``: one edit in four letters or more);
- Chinese: the same characters cut differently (微粒贷 / 微粒 贷), one word inside the other
  (借 / 借款), words sharing a CC-CEDICT gloss (得到 / 获取 "to get"; ``synonyms_zh.tsv``), or a
  character in common (借款 / 贷款; ``shared_char``), never across a negation (能 / 不能).

A swapped word with no such evidence — a different name, an opposite no list holds, another
product — vetoes. Values are the value guard's: digit runs are no content words here.

``swapped_word_en`` is the English rule in its guarded form, on by default (``SlotGuard(
swapped_word_en=…)``): it judges only an English word swapped *in place* — one word against one
word in one stretch of the alignment, every other difference function words — which is what an
opposite question an embedding cannot tell apart looks like (is it real / is it fake, how to
install / how to remove). A paraphrase that rewords around the swap (``keep getting`` / ``is
repeatedly``, ``get rid of`` / ``deal with``) is no such edit and is left to the cosine. Among the
one-word swaps of QQP's training pairs (``bench/swap_evidence.py``), a word against its direct
kind (``woman`` / ``girl``) or another form of it (``drivers`` / ``driving``) is about as often a
duplicate as a synonym swap (0.7–0.8), two kinds of one thing (``guy`` / ``girl``, ``rise`` /
``drop``) or unrelated words rarely (0.1–0.3): the evidence above keeps the first and vetoes the
second.

The order-free rules (``swaps_en``, ``swaps_zh``, ``stretch_zh``) are off by default: on the
labelled development pairs they veto more duplicates than they save (docs/benchmarks.md), because
paraphrases swap words no list vouches for (几天 / 多长) and reword around a swapped word. They
are what generalises to opposites and names no list holds, for a tenant whose traffic is more
templated than those sets.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from rapidfuzz.distance import Levenshtein

from ._diff import Change, Token, is_cjk, mostly_chinese
from ._fuzzy import word_typo
from ._lexicon import derivations_en, hypernyms_en, lemmas, synonyms_en, synonyms_zh

__all__ = [
    "content_words", "function_word_zh", "swap_in_place", "swapped_stretch_zh", "swapped_word_en", "unproven_swap",
]


def _words(text: str) -> frozenset[str]:
    """A set of words written as one space-separated string (lists read better that way)."""
    return frozenset(text.split())


#: English words that carry the question's form, not what it asks about.
_FUNCTION_EN = _words(
    "a an the this that these those some any each every all both of in on at to for from by with about "
    "into onto over under as than then so and or but if whether because while when where why how what "
    "which who whom whose is are was were be been being am do does did doing done have has had having "
    "can could shall should will would may might must i me my mine myself you your yours yourself we us "
    "our ours they them their theirs he him his she her hers it its there here one ones get got getting "
    "gets also just really very much many more most such way ways please anyone someone somebody "
    "anybody thing things tell know let like still ever even actually major main exactly truly quite "
    "not no never none nothing nobody any n't isn't aren't don't doesn't didn't can't cannot couldn't "
    "won't wouldn't shouldn't wasn't weren't haven't hasn't")  # negation is the negation rule's
#: Chinese words of the same kind: particles, pronouns, question words, modal verbs.
_FUNCTION_ZH = _words(
    "的 了 吗 呢 吧 啊 呀 么 嘛 哦 啦 哈 呐 额 嗯 我 你 您 他 她 它 我们 你们 他们 自己 是 在 和 与 跟 及 或 "
    "还 就 都 也 又 才 再 很 请问 请 问 问下 问一下 一下 下 个 一个 这个 那个 这 那 这样 那样 这种 什么 啥 "
    "怎么 怎样 怎么样 如何 为什么 为何 为啥 咋 哪 哪里 哪儿 哪些 哪个 多少 几 能 能够 可以 可 会 要 想 "
    "得 地 把 被 给 让 对 从 到 吗 么 有 上 里 中 时候 现在 已经 因为 所以 但是 如果 然后 就是 还是 一般 "
    "之前 以后 之后 谢谢 急 求 大神 知道 告诉 一些 几个 一点 些 哪部 哪种 哪家 最近 需要 你好 您好 重新 只是 "
    "一直 比较 使 要怎么 怎么办 办 该 应该 如何是好 我想 是否 到底 究竟 大家 谁 有谁 各位")
_NEGATORS = frozenset("不没沒无未非别莫勿")


def function_word_zh(word: str) -> bool:
    """A Chinese word that carries the question's form (的, 怎么, 可以), not what it asks about."""
    return word in _FUNCTION_ZH


def _content(token: Token) -> bool:
    key = token.key
    if key.isdigit() or not any(ch.isalpha() for ch in key):
        return False
    if is_cjk(token):
        return key not in _FUNCTION_ZH
    return key not in _FUNCTION_EN


def content_words(tokens: Sequence[Token], drop: str = "") -> Counter[str]:
    """The content words of a prompt (function words, digits and punctuation aside), with the
    characters in ``drop`` removed from each (``drop="不没"`` compares 不能借款 with 能借款)."""
    out: Counter[str] = Counter()
    for t in tokens:
        if _content(t):
            key = t.key.translate({ord(c): None for c in drop}) if drop else t.key
            if key and key not in _FUNCTION_ZH:
                out[key] += 1
    return out


def _meet(groups: dict[str, frozenset[int]], xs: set[str], ys: set[str]) -> bool:
    return any(groups.get(p, frozenset()) & groups.get(q, frozenset()) for p in xs for q in ys)


def _direct_kind(xs: set[str], ys: set[str]) -> bool:
    """A lemma of one word is a direct hyponym of a lemma of the other (girl / woman)."""
    hypernyms = hypernyms_en()
    return any(q in hypernyms.get(p, ()) or p in hypernyms.get(q, ()) for p in xs for q in ys)


def _derived(xs: set[str], ys: set[str]) -> bool:
    """A lemma of one word is a derivationally related form of a lemma of the other (drive / driver)."""
    forms = derivations_en()
    return any(q in forms.get(p, ()) for p in xs for q in ys)


#: The privative ending: a stem plus ``-less`` says the stem is missing (meaning / meaningless).
_PRIVATIVE = "less"


def _english_paraphrase(x: str, y: str) -> bool:
    lx, ly = lemmas(x), lemmas(y)
    if lx & ly:
        return True
    if _meet(synonyms_en(), lx, ly) or _derived(lx, ly) or _direct_kind(lx, ly):
        return True
    short, long = sorted((x, y), key=len)
    stem = len(_common_prefix(x, y))
    if _PRIVATIVE in x[stem:] + y[stem:]:
        return False  # meaning / meaningless, worth / worthless: one stem, opposite endings
    if len(short) >= 4 and long.startswith(short):
        return True
    if stem >= 5 and stem >= 0.6 * len(short):  # one stem, two endings: addictive / addicting
        return True
    if len(short) >= 5 and Levenshtein.distance(x, y, score_cutoff=1) <= 1:  # what'sapp / whatsapp
        return True
    return word_typo(x, y)  # what the fuzzy layer serves as a typo (rest / reset) the guard lets through


def _common_prefix(x: str, y: str) -> str:
    n = 0
    while n < min(len(x), len(y)) and x[n] == y[n]:
        n += 1
    return x[:n]


def _chinese_paraphrase(x: str, y: str, shared_char: bool) -> bool:
    if any(ch in _NEGATORS for ch in x) != any(ch in _NEGATORS for ch in y):
        return False
    if x in y or y in x:
        return True
    groups = synonyms_zh()
    if groups.get(x, frozenset()) & groups.get(y, frozenset()):
        return True
    return shared_char and bool(set(x) & set(y))


def _paraphrase(x: Token, y: Token, shared_char: bool) -> bool:
    if is_cjk(x) != is_cjk(y):
        return False
    if not is_cjk(x):
        return _english_paraphrase(x.key, y.key)
    return _chinese_paraphrase(x.key, y.key, shared_char)


def unproven_swap(ta: Sequence[Token], tb: Sequence[Token], max_words: int = 1,
                  shared_char: bool = True, chinese: bool = False) -> bool:
    """True when ``ta`` and ``tb`` share their content words but for at most ``max_words`` on each
    side, and some word lost or gained has no paraphrase on the other side. Swaps of Chinese words
    are judged only with ``chinese`` (measured: they veto far more labelled duplicates than they
    save; see docs/benchmarks.md)."""
    ca, cb = content_words(ta), content_words(tb)
    lost, new = ca - cb, cb - ca
    if not lost or not new or not (ca & cb):
        return False
    if lost.total() > max_words or new.total() > max_words:
        return False
    if sorted("".join(lost.elements())) == sorted("".join(new.elements())):
        return False  # the same characters cut into other words (微粒贷 / 微粒 贷)
    by_key = {t.key: t for t in [*ta, *tb]}
    xs = [by_key[k] for k in lost]
    ys = [by_key[k] for k in new]
    if not chinese and any(is_cjk(t) for t in [*xs, *ys]):
        return False
    return not (all(any(_paraphrase(x, y, shared_char) for y in ys) for x in xs)
                and all(any(_paraphrase(y, x, shared_char) for x in xs) for y in ys))


def swapped_word_en(ta: Sequence[Token], tb: Sequence[Token], diff: Sequence[Change]) -> bool:
    """True when the prompts differ by one English content word swapped in place for another — one
    stretch of the alignment holds one word on each side, every other stretch only function words
    or digits (the value guard's) — and nothing shows the two words to stand for each other
    (``_english_paraphrase``): is it real / is it fake, how to install / how to remove, speedy / slow."""
    swap = swap_in_place(ta, tb, diff)
    return swap is not None and not _english_paraphrase(swap[0].key, swap[1].key)


def swap_in_place(ta: Sequence[Token], tb: Sequence[Token], diff: Sequence[Change]) -> tuple[Token, Token] | None:
    """The two English content words when the prompts differ by one swapped in place (one stretch
    of one word on each side; every other stretch function words or digits), else None."""
    swapped = [c for c in diff if any(_content(t) for t in (*ta[c.a0:c.a1], *tb[c.b0:c.b1]))]
    if len(swapped) != 1:
        return None
    (c,) = swapped
    if c.a1 - c.a0 != 1 or c.b1 - c.b0 != 1:
        return None
    x, y = ta[c.a0], tb[c.b0]
    if is_cjk(x) or is_cjk(y) or not (_content(x) and _content(y)):
        return None
    return x, y


def swapped_stretch_zh(ta: Sequence[Token], tb: Sequence[Token], diff: Sequence[Change], max_chars: int = 4) -> bool:
    """Chinese: the prompts differ in one stretch only, and its content words (2–``max_chars``
    characters on each side) share no character, no negation and no CC-CEDICT gloss — another
    thing put in the same place (微信 / 支付宝, 丹东银行 / 日利银行), whatever jieba tagged it."""
    if len(diff) != 1 or not (mostly_chinese(ta) and mostly_chinese(tb)):
        return False  # both prompts mostly Chinese: the rule must not depend on which one is stored
    (c,) = diff
    sx = "".join(content_words(ta[c.a0:c.a1]).elements())
    sy = "".join(content_words(tb[c.b0:c.b1]).elements())
    if not (2 <= len(sx) <= max_chars and 2 <= len(sy) <= max_chars) or set(sx) & set(sy):
        return False
    if (set(sx) | set(sy)) & _NEGATORS:
        return False
    groups = synonyms_zh()
    return not groups.get(sx, frozenset()) & groups.get(sy, frozenset())
