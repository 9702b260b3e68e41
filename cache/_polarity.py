"""Polarity: two questions that ask the opposite of each other never share an answer.

Judged only on what changed between the two prompts (``_diff.changes``), three rules:

``antonym``
    one side's changed words hold a word where the other holds its opposite: English pairs
    from WordNet's direct antonyms plus a curated list of direction words (best / worst,
    increase / decrease, before / after), matched after inflection (``increases``, ``sold``,
    ``cheapest``, ``women``), and any two real words one affix apart that WordNet's antonyms show
    to be opposite affixes (unsafe / safe, overpaid / underpaid, careful / careless, over / under);
    Chinese word pairs (开通 / 关闭, 提高 / 降低), a verb against the one that undoes it (申请 /
    撤销, 开通 / 注销), and single opposite characters standing in the same place (上调 / 下调,
    上个月 / 下个月, and composed from opposite words: 质量好 / 质量差 after 最好 / 最差). A pair both prompts carry
    ("pros and cons" / "cons and pros") is no change of polarity.
``negation_zh``
    Chinese negation in the changed words on one side only. The negation *words* may differ —
    「为什么不能借款」 and 「为何无法借款」 both negate, and 失败 / 拒绝 count as negative — and
    A-not-A questions (能不能, 有没有, 是不是) or words that merely contain a negator (非常,
    无论, 不同, 区别) are no negation. The whole-text check this replaces vetoed a sixth of true
    BQ paraphrases; see docs/benchmarks.md for what this one costs.
``role_swap``
    the same two things on either side of a direction word, reversed: 深圳到北京 / 北京到深圳,
    "convert pdf to word" / "convert word to pdf", "from Paris to Rome" / "from Rome to Paris".
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher

from ._diff import Change, Token, is_cjk, matching_form, tokens
from ._lexicon import affixes_en, antonyms_en, lemmas, opposite_chars_zh, opposites_zh, words_en
from ._substitution import content_words

__all__ = ["affix_opposite", "antonym_clash", "negation_inserted_zh", "negation_zh_clash", "role_swap"]


def _words(text: str) -> frozenset[str]:
    """A set of words written as one space-separated string (lists read better that way)."""
    return frozenset(text.split())


def _side(tokens: Sequence[Token], lo: int, hi: int) -> Sequence[Token]:
    return tokens[lo:hi]


def _shares_pos(x: str, y: str, among: str = "nvar") -> bool:
    words = words_en()
    return bool(set(words.get(x, "")) & set(words.get(y, "")) & set(among))


def affix_opposite(x: str, y: str) -> bool:
    """``x`` and ``y`` are one stem with opposite affixes learned from WordNet's antonyms (unsafe /
    safe, overpaid / underpaid, hopeful / hopeless), both real words of the part of speech the
    affixes were learned on — so "under" is no un+der, "uniform" no un+iform, and "inform" (in- makes
    adjectives and nouns opposite, not verbs) no opposite of "form"; or they are two such affixes
    that are words of their own, adverbs or adjectives both (over / under)."""
    if x == y:
        return False
    for kind, p, q, pos in affixes_en():
        for u, v in ((p, q), (q, p)):
            if kind == "prefix" and x.startswith(u) and y.startswith(v):
                stem, other = x[len(u):], y[len(v):]
            elif kind == "suffix" and x.endswith(u) and y.endswith(v):
                stem, other = x[: len(x) - len(u)], y[: len(y) - len(v)]
            else:
                continue
            if stem == other and len(stem) >= 3 and _shares_pos(x, y, pos):
                return True
        if kind == "prefix" and p and {x, y} == {p, q} and _shares_pos(x, y, "ar"):
            return True
    return False


def _english_antonym(xs: Sequence[Token], ys: Sequence[Token], a_keys: Counter[str], b_keys: Counter[str],
                     affixes: bool = True) -> bool:
    pairs = antonyms_en()
    for x in xs:
        if is_cjk(x):
            continue
        lx = lemmas(x.key)
        for y in ys:
            if is_cjk(y) or x.key == y.key:
                continue
            ly = lemmas(y.key)
            if a_keys[x.key] <= b_keys[x.key] or b_keys[y.key] <= a_keys[y.key]:
                continue  # both prompts carry the pair as often ("pros and cons" / "cons and pros")
            if any(frozenset((p, q)) in pairs or (affixes and affix_opposite(p, q)) for p in lx for q in ly):
                return True
    return False


def _negated_word(text: str, word: str) -> bool:
    """不成功 is 失败, 取消绑定 is 解绑: an opposite that is itself negated says the same thing again."""
    at = text.find(word)
    return at > 0 and (text[at - 1] in _NEGATORS or text[:at].endswith(("取消", "解除")))


def _chinese_antonym(sa: str, sb: str, whole_a: str, whole_b: str, derived: bool, reversals: bool,
                     composed: bool) -> bool:
    table = opposites_zh(derived, reversals)
    for i in range(len(sa)):
        for j in range(i + 2, min(len(sa), i + 4) + 1):
            x = sa[i:j]
            for y in table.get(x, ()):
                if y in sb and whole_a.count(x) > whole_b.count(x) and whole_b.count(y) > whole_a.count(y) \
                        and not _negated_word(sa, x) and not _negated_word(sb, y):
                    return True
    chars = opposite_chars_zh(derived, composed)
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, sa, sb, autojunk=False).get_opcodes():
        if tag == "replace" and i2 - i1 == j2 - j1:
            for ca, cb in zip(sa[i1:i2], sb[j1:j2], strict=True):
                if frozenset((ca, cb)) in chars and cb not in sa and ca not in sb:
                    return True
    return False


def antonym_clash(ta: Sequence[Token], tb: Sequence[Token], diff: Sequence[Change], derived_zh: bool = False,
                  affixes_en: bool = False, reversals_zh: bool = False, composed_zh: bool = False) -> bool:
    """True when a changed stretch replaces a word by its opposite (``derived_zh``: Chinese
    opposites from the CC-CEDICT × WordNet bridge too; ``affixes_en``: English words made opposite
    by an affix, ``affix_opposite``; ``reversals_zh``: a Chinese verb against the one that undoes it;
    ``composed_zh``: the opposite characters two opposite words differ in, composed inside any word)."""
    a_keys = Counter(t.key for t in ta)
    b_keys = Counter(t.key for t in tb)
    whole_a = "".join(t.key for t in ta if is_cjk(t))
    whole_b = "".join(t.key for t in tb if is_cjk(t))
    for c in diff:
        xs, ys = _side(ta, c.a0, c.a1), _side(tb, c.b0, c.b1)
        if not xs or not ys:
            continue
        if _english_antonym(xs, ys, a_keys, b_keys, affixes_en):
            return True
        sa = "".join(t.key for t in xs if is_cjk(t))
        sb = "".join(t.key for t in ys if is_cjk(t))
        if sa and sb and _chinese_antonym(sa, sb, whole_a, whole_b, derived_zh, reversals_zh, composed_zh):
            return True
    return False


_NEGATORS = "不没沒冇无未非莫勿"
#: Words that hold a negator character without negating the question.
_NOT_NEGATION = _words(
    "非常 无论 不管 不过 不错 不仅 不但 不断 不少 不久 不同 未来 差不多 不得不 无所谓 毫无 无限 莫名 并非 "
    "不如 要不 要不然 不然 无聊 不一定 非得 无非 无需 不知道 不懂 不清楚 不确定 不明白 不好意思 不客气 "
    "感激不尽 不胜感激 别复制 不要复制 无缘无故")
#: Words that say "no" without a negator character.
_NEGATIVE = _words("失败 拒绝 被拒 驳回 禁止 别 难以 消失 尚未 还没 并未")
#: A negator closing a clause asks a question (好玩不？ 开通了没？ 有没有 … 没有？).
_TAG_QUESTION = _words("不 没 沒 没有 沒有 冇 否")
_PARTICLES = _words("呢 吗 啊 呀 么 嘛 哦 啦")
_WHY = _words("为什么 为何 为啥 怎么 咋 怎么会 干嘛")
_A_NOT_A = re.compile(r"(.)[不没]\1")


def _negating(tokens: Sequence[Token], i: int) -> bool:
    tok = tokens[i]
    word = tok.key
    if not is_cjk(tok) or word in _NOT_NEGATION:
        return False
    if word in _NEGATIVE:
        return True
    if _A_NOT_A.search(word):  # 能不能, 有没有, 是不是
        return False
    if word[0] in "不没" and len(word) > 1 and i > 0 and tokens[i - 1].key[-1:] == word[1]:
        return False  # 能 / 不能, 有 / 没有: an A-not-A question jieba cut in two
    if word == "不" and i > 0 and tokens[i - 1].key == "要":
        return False  # 要不 (how about …), which jieba cuts in two
    if word in _TAG_QUESTION and not any(t.key in _WHY for t in tokens[:i]):  # 为何微信没有？ negates
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if nxt is None or nxt.key in _PARTICLES or nxt.start > tok.start + len(tok.text):
            return False
    if word[0] in _NEGATORS:
        return True
    return any(ch in "不没" for ch in word[1:-1]) or word.endswith(("不了", "不到", "不上", "不起", "不动"))


_WHY_NOT = _words("为什么 为何 为啥 咋 干嘛 怎么会 why")


def _why(tokens: Sequence[Token]) -> bool:
    return any(t.key in _WHY_NOT for t in tokens)


def _negated_heads(tokens: Sequence[Token], i: int) -> set[str]:
    """What the negation at token ``i`` may attach to: the rest of the word (不能 → 能, 没有 → 有,
    借不了 → 借) and the word after it (不 借款 → 借款)."""
    word = tokens[i].key
    heads = set()
    if len(word) > 1 and word[0] in _NEGATORS:
        heads.add(word[1:])
    for ending in ("不了", "不到", "不上", "不起", "不动"):
        if word.endswith(ending) and len(word) > len(ending):
            heads.add(word[: -len(ending)])
    if i + 1 < len(tokens) and is_cjk(tokens[i + 1]):
        heads.add(tokens[i + 1].key)
    return heads


def _attached(tokens: Sequence[Token], i: int, other: Sequence[Token]) -> bool:
    """The negation at ``tokens[i]`` negates a word the other prompt holds un-negated."""
    heads = _negated_heads(tokens, i)
    return any(t.key in heads and not (j > 0 and _negating(other, j - 1)) for j, t in enumerate(other))


def negation_zh_clash(ta: Sequence[Token], tb: Sequence[Token], diff: Sequence[Change],
                      attached: bool = True, alone: bool = False) -> bool:
    """True when what changed negates on one side only and the two texts negate a different
    number of times (a negation both carry, moved or reworded, is no change).

    With ``attached`` (the default) a negation counts only when it attaches to a word both prompts
    share — 「为什么不能借款」 / 「为什么能借款」 negate 能 both hold; 「可以用微信还款吗」 /
    「微信的钱不能还吗」 ask one thing in two framings, and BQ labels many such pairs duplicates.
    With ``alone`` the negation must be all that differs between the content words (「孕妇可以吃饼干吗」
    / 「孕妇不可以吃饼干吗」).
    """
    if alone and content_words(ta, _NEGATORS) != content_words(tb, _NEGATORS):
        return False
    if alone and _why(ta) != _why(tb):
        return False  # 「为什么审批不通过」 asks after a failure what 「怎么能审批通过」 asks after a way
    changed_a = any(_negating(ta, i) and (not attached or _attached(ta, i, tb))
                    for c in diff for i in range(c.a0, c.a1))
    changed_b = any(_negating(tb, i) and (not attached or _attached(tb, i, ta))
                    for c in diff for i in range(c.b0, c.b1))
    if changed_a == changed_b:
        return False
    return sum(_negating(ta, i) for i in range(len(ta))) != sum(_negating(tb, i) for i in range(len(tb)))


def negation_inserted_zh(a: str, b: str) -> bool:
    """Chinese: the two texts are one text, but for negator characters one side adds (谁有 / 谁没有,
    没有人 / 有人, 还没有接到 / 还有接到), and every word that holds an added negator negates
    (``_negating``: no A-not-A question, tag question or word such as 非常).

    Compared character by character, so however jieba cut either side (斗 / 罗 against 斗罗, 有人
    against 没有 / 人) the pair is seen for what it is: the same question, negated.
    """
    fa, fb = matching_form(a).casefold(), matching_form(b).casefold()
    added_a: list[int] = []
    added_b: list[int] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, fa, fb, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if tag == "replace" or not all(ch in _NEGATORS for ch in fa[i1:i2] + fb[j1:j2]):
            return False
        added_a += range(i1, i2)
        added_b += range(j1, j2)
    if bool(added_a) == bool(added_b):
        return False  # nothing added, or negation on both sides
    text, added = (a, added_a) if added_a else (b, added_b)
    toks = tokens(text)
    holders = {i for p in added for i, t in enumerate(toks) if t.start <= p < t.start + len(t.text)}
    return bool(holders) and all(_negating(toks, i) for i in holders)


_CONNECTORS = _words("到 至 去 往 飞 飞往 开往 回 转 to → ->")
_FUNCTION_EN = _words(
    "how what why when where who which is are do does did can could should would will i you we they it "
    "a an the my your me be been have has had want need way best good able going go from get")


_AFTER_PLACE = _words("in on at by for via with and or but if when is are was will should than")


def _directed(tokens: Sequence[Token]) -> set[tuple[str, str]]:
    """(x, y) for every ``x → y`` the text states: x 到 y, x to y, from x … to y …."""
    keys = [t.key for t in tokens]
    out: set[tuple[str, str]] = set()
    for i in range(1, len(keys) - 1):
        if keys[i] in _CONNECTORS:
            x, y = keys[i - 1], keys[i + 1]
            if x not in _FUNCTION_EN and y not in _FUNCTION_EN and x != y:
                out.add((x, y))
    if "from" in keys:
        start = keys.index("from") + 1
        if "to" in keys[start:]:
            mid = keys.index("to", start)
            end = mid + 1
            while end < len(keys) and end <= mid + 4 and keys[end] not in _AFTER_PLACE:
                end += 1
            x, y = " ".join(keys[start:mid]), " ".join(keys[mid + 1:end])
            if x and y and x != y and mid - start <= 4:
                out.add((x, y))
    return out


def role_swap(ta: Sequence[Token], tb: Sequence[Token]) -> bool:
    """True when one prompt goes from x to y and the other from y to x."""
    da, db = _directed(ta), _directed(tb)
    return any((y, x) in db and (y, x) not in da for x, y in da)
