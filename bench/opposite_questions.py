"""Opposite questions and swapped names: are they served the original's answer?

Every development question (QQP val, LCQMC dev, BQ dev) that holds a word from a list gets one
variant with that word replaced — by its opposite ("best" → "worst", 开通 → 关闭, 能 → 不能),
or, for names, by another name of the same kind ("Battle of Somme" → "Battle of Mill" style:
Paris → Tokyo, Python → Java, 北京 → 深圳, 工商银行 → 招商银行). The originals go into
one real :class:`SemanticCache` (with other questions of the set as distractors, ``--pool`` in all);
each variant is looked up, and a *false hit* is a variant served
its original's answer. Measured with the guard before this change (values + English negation)
and with the default guard, at the shipped intercept and fallback thresholds and at the set's own
2% threshold (plain cosine on its labelled pairs, ≈ where a calibrated tenant sits).

Three kinds of word list, so the figure is not only the guard grading its own homework:

- ``lexicon``: variants made from the guard's own lists (WordNet and curated antonyms, the
  hand-written and CC-CEDICT-bridged Chinese opposites, ``cache/lexicon``; for names, jieba-tagged
  places and capitalised names found in the questions swapped for others of the same tag);
- ``held-out``: hand-written lists in this file that the guard never reads;
- ``unseen``: the held-out pairs that none of the guard's lists recognises (``guard_knows``: every
  list file the guard reads, the Chinese reversal verbs and composed characters included), and for
  English WordNet's indirect antonyms, a source the guard does not read as opposites — what a
  checker with word lists we do not see should find. The guard's constructions that are no list
  (English opposite affixes composed with any word: unsafe / safe, over / under; the swapped-word
  rule, which vetoes any word swapped in place that nothing shows to stand for the other) count as
  unseen here: what they catch there is what they generalise to. The guard does read WordNet's
  adjective clusters, direct kinds and derived forms, but only as evidence that two words stand for
  each other (a reason to let a pair through), never as opposites.

WordNet's indirect antonyms pair adjective *senses*; some satellites are also English closed-class
words (``in`` "fashionable", ``on`` "operating", ``I`` "one", ``about`` "astir", ``like``
"similar"), and replacing the preposition or pronoun of a question with the opposite of that
adjective sense ("What should I do?" → "What should ordinal do?") makes no opposite question. Such
variants are measured in a row of their own and left out of the pooled figure; the pooled row
replaces content words only (``CLOSED_CLASS_EN``, written here, not the guard's function words).

Trivial rewrites (case, spacing, punctuation width, trailing ?) of the same questions are looked
up too: they must still hit their original.

Run: ``python bench/opposite_questions.py [--sets qqp_val lcqmc_dev bq_dev] [--max 1500] [--pool 6000]
[--rewrites 1000] [--write]``.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _cache_common import (
    SETS,
    MemoEmbedder,
    faiss_single_thread,
    hit_rate_at_false_hit,
    load_set,
    machine_line,
    plain_cosine,
    rewrite,
    temp_cache,
)
from _common import write_section

from lastline import get_embedder, normalize_text
from lastline.cache import CacheConfig, SlotGuard, default_threshold
from lastline.cache._diff import changes, matching_form, tokens
from lastline.cache._lexicon import antonyms_en, lemmas, names_en, opposites_zh
from lastline.cache._polarity import antonym_clash

BEFORE = SlotGuard(antonyms=False, changed_negation_zh=False, role_swaps=False, names=False, names_zh_spans=False,
                   swapped_nouns_zh=False, derived_zh=False, swapped_word_en=False)
#: The default guard without the English swapped-word rule: what the lists and constructions catch alone.
LISTS = SlotGuard(swapped_word_en=False)
AFTER = SlotGuard()
#: The default guard plus the order-free minimal-edit rules (off by default: see cache/slot_guard.py).
SWAPS = SlotGuard(swaps_en=True, swaps_zh=True, stretch_zh=True)
GUARDS = {"before": BEFORE, "after, no swapped word": LISTS, "after": AFTER, "after + swaps": SWAPS}
WORDNET = Path("/usr/share/wordnet")

# ------------------------------------------------------------------ held-out lists (never read by the guard)

def _opposites(spec: str) -> list[tuple[str, ...]]:
    return [tuple(pair.split("/")) for pair in spec.split()]


HELD_OUT_OPPOSITES_EN = _opposites("""
good/bad easy/hard positive/negative legal/illegal possible/impossible safe/unsafe happy/unhappy
rich/poor strong/weak true/false love/hate accept/reject include/exclude increase/reduce gain/lose
rise/drop grow/shrink fast/slow early/late first/last big/small heavy/light high/low top/bottom
inside/outside before/after above/below over/under win/lose pass/fail success/failure borrow/lend
import/export push/pull attack/defend arrive/leave enter/exit remember/forget start/finish
begin/end open/close clean/dirty wet/dry hot/cold long/short young/old new/old modern/ancient
natural/artificial real/fake online/offline public/private male/female men/women boys/girls
father/mother like/dislike agree/disagree allow/ban best/worst most/least more/fewer friend/enemy
right/wrong smart/stupid beautiful/ugly benefit/harm advantages/disadvantages pros/cons
upgrade/downgrade install/remove add/delete join/quit hire/fire morning/night summer/winter
north/south east/west left/right cheap/costly better/worse increase/lower always/never
""")

HELD_OUT_OPPOSITES_ZH = _opposites("""
开通/注销 升高/降低 变多/变少 扩大/缩小 提升/下降 加快/放慢 延长/缩短 增多/减少 放大/缩小
批准/驳回 成功/失败 能/不能 可以/不可以 会/不会 是/不是 有/没有 要/不要 借入/借出 收到/发出
开户/销户 办理/取消 申请/撤销 提额/降额 涨价/降价 高/矮 胖/瘦 长/短 贵/便宜 快/慢 早/迟 好/差
喜欢/讨厌 爱/恨 男/女 男孩/女孩 新/老 进/退 上/下 里/外 前/后 买/卖 正/反 多/少 深/浅
白天/夜晚 安全/危险 简单/困难 容易/难 热/冷 甜/苦 硬/软 大/小 最好/最坏 最高/最低 最贵/最便宜
以上/以下 之前/之后 开始/结束 打开/关上 开机/关机 登录/登出 上线/下线 充值/提现 还款/借款
""")

HELD_OUT_NAMES_EN = {
    "city": "London|Paris|Tokyo|Mumbai|Delhi|Bangalore|Chennai|Hyderabad|Pune|Kolkata|Chicago|Boston|"
            "Seattle|Toronto|Sydney|Melbourne|Berlin|Dubai|Singapore|New York|San Francisco|Los Angeles",
    "country": "India China USA Canada Australia Germany France Japan Russia Pakistan UK Brazil Italy "
               "Spain Mexico Israel Iran Nepal",
    "programming language": "Python Java JavaScript Ruby PHP Swift Kotlin Rust Scala Perl MATLAB",
    "language": "English Hindi French German Spanish Japanese Russian Arabic Tamil",
    "company": "Google Facebook Amazon Microsoft Quora Infosys TCS Wipro Uber Netflix Tesla Samsung IBM "
               "Intel Flipkart",
    "product": "iPhone Android Windows Linux WhatsApp Instagram Snapchat Twitter YouTube Gmail Excel "
               "Photoshop Xbox PlayStation",
    "person": "Donald Trump|Hillary Clinton|Barack Obama|Narendra Modi|Elon Musk|Bill Gates|Steve Jobs|"
              "Mark Zuckerberg|Albert Einstein|Rahul Gandhi|Arvind Kejriwal|Salman Khan|Virat Kohli",
}
HELD_OUT_NAMES_ZH = {
    "city": "北京 上海 广州 深圳 杭州 南京 武汉 成都 重庆 西安 天津 苏州 长沙 郑州 青岛 厦门 大连 沈阳 哈尔滨 昆明",
    "province": "广东 江苏 浙江 山东 河南 河北 湖南 湖北 四川 福建 云南 广西 陕西 山西 安徽 江西 贵州 辽宁 吉林 "
                "新疆 西藏",
    "country": "中国 美国 日本 韩国 英国 法国 德国 俄罗斯 泰国 澳大利亚 加拿大 新加坡",
    "bank": "工商银行 建设银行 农业银行 中国银行 招商银行 交通银行 邮政银行 浦发银行 民生银行 光大银行 平安银行 "
            "兴业银行 中信银行",
    "app": "微信 支付宝 淘宝 京东 美团 QQ 微博 抖音 百度 拼多多 饿了么 滴滴",
    "phone": "苹果 华为 小米 三星 vivo oppo 魅族",
    "game": "英雄联盟 王者荣耀 地下城与勇士 穿越火线 魔兽世界 梦幻西游 天天酷跑 植物大战僵尸 我的世界",
    "person": "周杰伦 刘德华 林俊杰 王菲 成龙 鲁迅 李白 杜甫 孔子 诸葛亮",
    "language": "英语 日语 韩语 法语 德语 汉语 俄语",
}


def _name_lists(lists: dict[str, str]) -> dict[str, list[str]]:
    """Names split on ``|`` when the list uses it (names of several words), else on spaces."""
    return {kind: [n.strip() for n in (spec.split("|") if "|" in spec else spec.split())]
            for kind, spec in lists.items()}


#: English closed-class words — prepositions and particles, pronouns, auxiliaries and modals,
#: conjunctions, focusing and degree adverbs — that WordNet also lists as adjectives in another sense
#: (``in`` "fashionable", ``I`` "one"). Determiners and quantifiers are not here: "some" → "few",
#: "all" → "both" change what a question asks. Written for this bench, independent of the guard's lists.
def _word_set(spec: str) -> frozenset[str]:
    return frozenset(spec.split())


CLOSED_CLASS_EN = _word_set("""
i me you he she it we they one in at about above across after against along among around as before
behind below beneath beside between beyond by down during for from inside into like near of off on onto out
outside over past per since than through throughout till to toward towards under until up upon with within
without and or but nor so yet if because while though although whether am is are was were be been being do
does did have has had can could may might must shall should will would here there now then just still even
very too also only quite rather almost
""")


def guard_knows(a: str, b: str) -> bool:
    """The guard's own word lists recognise ``a`` / ``b`` as opposites (the two words alone, every
    list on): such a pair measures the lists, not how the guard does on words it never saw."""
    if a.isascii() and b.isascii():
        pairs = antonyms_en()
        return any(frozenset((p, q)) in pairs for p in lemmas(a.lower()) for q in lemmas(b.lower()))
    ta, tb, diff = changes(a, b)
    return antonym_clash(ta, tb, diff, derived_zh=True, reversals_zh=True, composed_zh=True) \
        or b in opposites_zh(True, True).get(a, ())


def unseen(pairs: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    """The held-out pairs none of the guard's lists holds."""
    return [p for p in pairs if not guard_knows(p[0], p[1])]


def wordnet_indirect_antonyms(wordnet: Path = WORDNET) -> list[tuple[str, str]]:
    """English opposites from a source the guard does not read: WordNet's *indirect* antonyms,
    an adjective satellite against the head opposite its own head (speedy / slow, tiny / big),
    read from Debian's ``wordnet-base`` at bench time. Empty when WordNet is not installed."""
    if not (wordnet / "data.adj").exists():
        return []
    from build_lexicons import _synsets

    adj = _synsets(wordnet / "data.adj")
    out: set[tuple[str, str]] = set()
    for _, ptrs in adj.values():
        heads_opposite = [adj[off][0][int(st[2:], 16) - 1] for sym, off, _, st in ptrs if sym == "!" and st != "0000"]
        satellites = [w for sym, off, _, _ in ptrs if sym == "&" for w in adj[off][0]]
        for sat in satellites:
            for opp in heads_opposite:
                if sat.isalpha() and opp.isalpha() and sat.isascii() and opp.isascii() and sat != opp:
                    out.add((min(sat, opp), max(sat, opp)))
    return sorted(out)


# ------------------------------------------------------------------ variant makers

def _match_case(template: str, word: str) -> str:
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    if template.islower():
        return word.lower()
    return word


def _both_ways(pairs: list[tuple[str, str]]) -> dict[str, list[str]]:
    """Each word's opposites, whichever side of a pair it stands on."""
    table: dict[str, list[str]] = defaultdict(list)
    for a, b in pairs:
        table[a].append(b)
        table[b].append(a)
    return table


def english_opposites(questions: list[str], pairs: list[tuple[str, str]], rng: random.Random,
                      keep: Callable[[str], bool] = lambda word: True) -> list[tuple[str, str]]:
    """Questions with one word replaced by its opposite from ``pairs`` (either direction); only words
    ``keep`` accepts (lower-cased) are replaced."""
    table = _both_ways(pairs)
    out = []
    for q in questions:
        if q.isascii() is False and re.search(r"[\u4e00-\u9fff]", q):
            continue
        spots = [m for m in re.finditer(r"[A-Za-z]+", q) if m.group().lower() in table and keep(m.group().lower())]
        if not spots:
            continue
        m = rng.choice(spots)
        new = _match_case(m.group(), rng.choice(table[m.group().lower()]))
        out.append((q, q[:m.start()] + new + q[m.end():]))
    return out


def chinese_opposites(questions: list[str], pairs: list[tuple[str, str]], rng: random.Random) -> list[tuple[str, str]]:
    """Questions with one jieba word replaced by its opposite (whole words only: 快 in 快递 stays)."""
    table = _both_ways(pairs)
    out = []
    for q in questions:
        spots = [t for t in tokens(q) if t.key in table]
        if not spots:
            continue
        t = rng.choice(spots)
        out.append((q, _splice(q, t.start, len(t.text), rng.choice(table[t.key]))))
    return out


def _splice(text: str, start: int, length: int, new: str) -> str:
    """Replace a token (offsets in ``matching_form``) in the text as written when that form kept its length."""
    folded = matching_form(text)
    base = text if len(folded) == len(text) else folded
    return base[:start] + new + base[start + length:]


def swapped_names(questions: list[str], lists: dict[str, list[str]], rng: random.Random,
                  latin: bool) -> list[tuple[str, str]]:
    """Questions with one listed name replaced by another of the same kind (case style kept)."""
    out = []
    for q in questions:
        spots = []
        for kind, names in lists.items():
            for name in names:
                pattern = (r"(?<![A-Za-z])" + re.escape(name) + r"(?![A-Za-z])") if latin or name.isascii() \
                    else re.escape(name)
                for m in re.finditer(pattern, q, flags=re.I if latin or name.isascii() else 0):
                    spots.append((m, kind, name))
        if not spots:
            continue
        m, kind, name = rng.choice(spots)
        other = rng.choice([n for n in lists[kind] if n.lower() != name.lower()])
        new = _match_case(m.group(), other) if latin or other.isascii() else other
        out.append((q, q[:m.start()] + new + q[m.end():]))
    return out


def swapped_tagged(questions: list[str], rng: random.Random) -> list[tuple[str, str]]:
    """Chinese: a jieba-tagged place (``ns``) swapped for another place seen in the questions."""
    pool: dict[str, int] = defaultdict(int)
    for q in questions:
        for t in tokens(q):
            if t.tag == "ns" and len(t.key) >= 2:
                pool[t.key] += 1
    places = sorted(p for p, n in pool.items() if n >= 2)
    out = []
    for q in questions:
        spots = [t for t in tokens(q) if t.tag == "ns" and t.key in pool]
        if not spots or len(places) < 2:
            continue
        t = rng.choice(spots)
        other = rng.choice([p for p in places if p != t.key])
        out.append((q, _splice(q, t.start, len(t.text), other)))
    return out


def swapped_capitalised(questions: list[str], rng: random.Random) -> list[tuple[str, str]]:
    """English: a mid-sentence capitalised word swapped for another seen capitalised in the questions."""
    pool: dict[str, int] = defaultdict(int)
    for q in questions:
        for m in re.finditer(r"(?<=[a-z,] )[A-Z][a-z]{2,}\b", q):
            pool[m.group()] += 1
    names = sorted(n for n, c in pool.items() if c >= 3)
    out = []
    for q in questions:
        spots = [m for m in re.finditer(r"(?<=[a-z,] )[A-Z][a-z]{2,}\b", q) if m.group() in pool]
        if not spots:
            continue
        m = rng.choice(spots)
        other = rng.choice([n for n in names if n != m.group()])
        out.append((q, q[:m.start()] + other + q[m.end():]))
    return out


# ------------------------------------------------------------------ measurement

def _use_guard(cache: object, guard: SlotGuard) -> None:
    """Judge the cache's candidates with ``guard`` (the cache and its lookup path hold one each)."""
    cache.guard = guard  # type: ignore[attr-defined]
    lookup = getattr(cache, "_lookup", None)
    if lookup is not None and hasattr(lookup, "guard"):
        lookup.guard = guard


def measure(name: str, max_variants: int, pool: int, embedder: object, seed: int = 5,
            n_rewrites: int = 1000) -> list[dict[str, object]]:
    rng = random.Random(seed)
    pairs = load_set(name)
    lang = SETS[name]
    questions = list(dict.fromkeys([*pairs.first, *pairs.second]))  # type: ignore[attr-defined]
    norm_set = {normalize_text(q) for q in questions}
    if lang == "en":
        gazetteer = names_en()
        unseen_names = {kind: [n for n in names if n.lower() not in gazetteer]
                        for kind, names in _name_lists(HELD_OUT_NAMES_EN).items()}
        made = {
            "opposite word (lexicon)": english_opposites(questions, [tuple(p) for p in antonyms_en()], rng),
            "opposite word (held-out list)": english_opposites(questions, HELD_OUT_OPPOSITES_EN, rng),
            "opposite word (held-out list, unseen)": english_opposites(questions, unseen(HELD_OUT_OPPOSITES_EN), rng),
            "opposite word (WordNet indirect, unseen)": english_opposites(
                questions, unseen(wordnet_indirect_antonyms()), rng,  # type: ignore[arg-type]
                keep=lambda word: word not in CLOSED_CLASS_EN),
            "closed-class word (WordNet indirect; not pooled)": english_opposites(
                questions, unseen(wordnet_indirect_antonyms()), rng,  # type: ignore[arg-type]
                keep=lambda word: word in CLOSED_CLASS_EN),
            "swapped name (capitalised in the questions)": swapped_capitalised(questions, rng),
            "swapped name (held-out list)": swapped_names(questions, _name_lists(HELD_OUT_NAMES_EN), rng, True),
            "swapped name (held-out list, unseen)": swapped_names(
                questions, {k: v for k, v in unseen_names.items() if len(v) >= 2}, rng, True),
        }
    else:
        table = opposites_zh(True, True)
        made = {
            "opposite word (lexicon)": chinese_opposites(
                questions, [(a, b) for a, bs in table.items() for b in bs], rng),
            "opposite word (held-out list)": chinese_opposites(questions, HELD_OUT_OPPOSITES_ZH, rng),
            "opposite word (held-out list, unseen)": chinese_opposites(questions, unseen(HELD_OUT_OPPOSITES_ZH), rng),
            "swapped name (jieba places)": swapped_tagged(questions, rng),
            "swapped name (held-out list)": swapped_names(questions, _name_lists(HELD_OUT_NAMES_ZH), rng, False),
        }
    sets = {}
    for label, variants in made.items():
        kept = [(q, v) for q, v in variants if normalize_text(v) not in norm_set and normalize_text(v)]
        rng.shuffle(kept)
        sets[label] = kept[:max_variants]
    rewrites = [(q, rewrite(q, rng)[1]) for q in rng.sample(questions, min(n_rewrites, len(questions)))]
    # the cache: every original looked up against, plus other questions of the set as distractors
    wanted = {q for vs in [*sets.values(), rewrites] for q, _ in vs}
    others = [q for q in questions if q not in wanted]
    questions = [*sorted(wanted), *rng.sample(others, min(len(others), max(0, pool - len(wanted))))]
    texts = [*questions, *(v for vs in sets.values() for _, v in vs), *(r for _, r in rewrites)]
    memo = MemoEmbedder(embedder, texts)
    plain = plain_cosine(memo, pairs.first, pairs.second)  # type: ignore[attr-defined]
    t_own = hit_rate_at_false_hit(plain, pairs.labels, 0.02)[0]  # type: ignore[attr-defined]
    model = memo.model_id
    thresholds = {"intercept": default_threshold(model, "intercept").value,
                  "fallback": default_threshold(model, "fallback").value, "own 2%": t_own}
    cache = temp_cache(CacheConfig(record_lookups=False), f"opp-{name}", memo)
    ids: list[str] = []
    for start in range(0, len(questions), 1024):
        ids += cache.put_many([{"prompt": q, "response": q} for q in questions[start:start + 1024]])  # type: ignore[attr-defined]
    id_of = dict(zip(questions, ids, strict=True))
    rows: list[dict[str, object]] = []
    held = {"en": (HELD_OUT_OPPOSITES_EN, wordnet_indirect_antonyms()), "zh": (HELD_OUT_OPPOSITES_ZH, [])}[lang]
    unseen_counts = {"held-out list": (len(unseen(held[0])), len(held[0])),  # type: ignore[arg-type]
                     "WordNet indirect": (len(unseen(held[1])), len(held[1]))}  # type: ignore[arg-type]
    for label, variants in [*sets.items(), ("trivial rewrite (must hit)", rewrites)]:
        row: dict[str, object] = {"set": name, "lang": lang, "kind": label, "n": len(variants),
                                  "examples": variants[:2]}
        lowest = min(thresholds.values())
        for guard_label, guard in GUARDS.items():
            _use_guard(cache, guard)
            # one lookup at the lowest threshold says what every higher one serves: the best
            # candidate that passes the guard, kept when its layer is exact/fuzzy or its cosine clears t
            found = [cache.lookup(v, threshold=lowest) for _, v in variants]  # type: ignore[attr-defined]
            for t_label, t in thresholds.items():
                own = [res.entry_id == id_of[q] and (res.layer != "semantic" or (res.similarity or 0) >= t)
                       for res, (q, _) in zip(found, variants, strict=True)]
                row[f"{guard_label} {t_label}"] = float(np.mean(own)) if own else float("nan")
                row[f"{guard_label} {t_label} count"] = int(np.sum(own))
                if guard_label == "after" and t_label == "own 2%":
                    row["leaks"] = [pair for pair, hit in zip(variants, own, strict=True) if hit][:4]
        rows.append(row)
    for row in rows:
        row["t_own"] = t_own
        row["pool"] = len(questions)
        row["unseen"] = unseen_counts
    return rows


def _group(kind: str) -> str:
    if kind.startswith("trivial"):
        return "rewrite (must hit)"
    if "not pooled" in kind:
        return "closed-class words replaced (not an opposite question; not pooled)"
    if "unseen" in kind:
        return "unseen by the guard's lists"
    return "held-out list (all pairs)" if "held-out" in kind else "guard's own lists"


def render(rows: list[dict[str, object]], started: str, seconds: float) -> str:
    guards = list(GUARDS)
    out = [
        "## Opposite questions and swapped names",
        "",
        f"`bench/opposite_questions.py` — {started}; {seconds / 60:.0f} min. Default embedder, one real cache per",
        f"set holding the originals and other questions of the set ({rows[0]['pool']:,} in all); each variant",
        "looked up; **served its original's answer** = the share below (lower is better; trivial rewrites:",
        "higher is better). *before*: the value guard with English negation (the guard before the polarity",
        "and name rules); *after, no swapped word*: the default guard without the English swapped-word rule",
        "(what the lists and the affix construction catch); *after*: the default guard; *after + swaps*: the",
        "default guard with the order-free minimal-edit rules on (off by default: they veto more labelled",
        "duplicates than they save). Thresholds: shipped",
        "intercept / fallback, and the set's own plain-cosine threshold for 2% false hits on its labelled",
        "pairs (≈ a calibrated tenant).",
        "",
        "Word lists: *guard's own lists* — variants from the lists the guard reads (WordNet and curated",
        "antonyms, the hand-written and CC-CEDICT-bridged Chinese opposites; names the guard's recognisers",
        "find in the questions). *held-out list* — hand-written lists in the bench that the guard never reads.",
        "*unseen* — only the held-out pairs that none of the guard's lists recognises (the two words alone",
        "through the guard's antonym lookup with every list on, Chinese reversal verbs and composed",
        "characters included; names absent from its gazetteer), and for English a second source, WordNet's",
        "*indirect* antonyms (a satellite adjective against the opposite head: speedy / slow), which the",
        "guard does not read as opposites (it reads adjective clusters, direct kinds and derived forms only",
        "as evidence that two words stand for each other): what a checker with word lists we do not see",
        "should find. The English opposite-affix rule and the swapped-word rule are no lists, so the unseen",
        "pairs they catch are what they generalise to. Satellites that are also closed-class words (in",
        "\"fashionable\", I \"one\", like \"similar\") make no opposite question when they replace a",
        "preposition or pronoun (\"What should I do?\" → \"What should ordinal do?\"): those variants have",
        "a row of their own and stay out of the pooled figures.",
        "",
    ]
    seen: set[str] = set()
    for r in rows:
        if r["set"] in seen:
            continue
        seen.add(str(r["set"]))
        counts = r["unseen"]
        out.append(f"- {r['set']}: unseen pairs — " + "; ".join(
            f"{k} {u} of {n}" for k, (u, n) in counts.items() if n))  # type: ignore[attr-defined]
    out += ["", "| set | variants | n | " + " | ".join(f"{g}: int / fb / own 2%" for g in guards) + " |",
            "|---|---|---|" + "---|" * len(guards)]
    for r in rows:
        cells = [" / ".join(f"{r[f'{g} {t}']:.1%}" for t in ("intercept", "fallback", "own 2%")) for g in guards]
        out.append(f"| {r['set']} (own 2% = {r['t_own']:.4f}) | {r['kind']} | {r['n']} | " + " | ".join(cells) + " |")
    out += ["", "By language (variant kinds pooled, own-2% threshold):", "",
            "| language | word lists | variants | " + " | ".join(guards) + " |", "|---|---|---|" + "---|" * len(guards)]
    pooled: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0] * (1 + len(guards)))
    for r in rows:
        acc = pooled[(str(r["lang"]), _group(str(r["kind"])))]
        acc[0] += int(r["n"])  # type: ignore[call-overload]
        for i, g in enumerate(guards):
            acc[1 + i] += int(r[f"{g} own 2% count"])  # type: ignore[call-overload]
    for (lang, group), (n, *counts) in sorted(pooled.items()):
        out.append(f"| {lang} | {group} | {n} | " + " | ".join(f"{c / max(n, 1):.1%}" for c in counts) + " |")
    out += ["", "Variants still served their original's answer (after, own 2%), first few per kind:", ""]
    for r in rows:
        for q, v in r["leaks"]:  # type: ignore[attr-defined]
            if not str(r["kind"]).startswith("trivial"):
                out.append(f"- {r['set']}, {r['kind']}: {q!r} → {v!r}")
    return "\n".join(out) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sets", nargs="+", default=list(SETS))
    parser.add_argument("--max", type=int, default=1500, help="variants per kind and set")
    parser.add_argument("--pool", type=int, default=6000,
                        help="questions in the cache: the originals plus other questions of the set")
    parser.add_argument("--rewrites", type=int, default=1000, help="trivial rewrites looked up per set")
    parser.add_argument("--write", action="store_true", help="write the section of docs/benchmarks.md")
    args = parser.parse_args()
    faiss_single_thread()
    started, t0 = machine_line(), time.perf_counter()
    embedder = get_embedder("use", 1)
    rows = []
    for name in args.sets:
        rows += measure(name, args.max, args.pool, embedder, n_rewrites=args.rewrites)
        print(f"{name} done ({time.perf_counter() - t0:.0f}s)", file=sys.stderr, flush=True)
    text = render(rows, started, time.perf_counter() - t0)
    print(text)
    if args.write:
        print(f"wrote {write_section('## Opposite questions and swapped names', text)}", file=sys.stderr)


if __name__ == "__main__":
    main()
