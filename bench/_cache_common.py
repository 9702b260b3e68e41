"""Shared pieces of the cache benchmarks: data paths, machine line, splits, value variants, rewrites.

Value-changed variants: a question with a number gets exactly one value changed ("2 tickets" →
"3 tickets", "借五千元" → "借六千元"): Arabic numbers in both languages, Chinese numerals (including
两/万/亿 and financial capitals) only where a measure word or unit follows, so 一下 / 一样 / 统一 are
left alone. The most significant digit moves by one, so the text stays natural.

Trivial rewrites: the same question with its case, spacing, full/half-width punctuation or
digits, or trailing question mark changed. A cache must still answer these.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import time
from pathlib import Path

import numpy as np
from _common import DATA, machine

from lastline.cache.served import question_roots

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

CACHE_DATA = DATA / "cache"
SETS = {"qqp_val": "en", "lcqmc_dev": "zh", "bq_dev": "zh"}

__all__ = [
    "CACHE_DATA", "SETS", "machine_line", "percentile_ms", "rewrite", "split_by_question",
    "value_variant",
]


def machine_line() -> str:
    """The machine (``_common.machine``), the UTC time and the load when a run starts, for the docs."""
    return f"{machine()} {time.strftime('%H:%M UTC', time.gmtime())}; load average {os.getloadavg()[0]:.1f} at start"


def pair_bench_args(section: str, doc: str | None) -> argparse.Namespace:
    """The options of the benches that score every pair file with one embedder: --embedder, --limit, --write."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0] if doc else None)
    parser.add_argument("--embedder", default="use")
    parser.add_argument("--limit", type=int, default=None, help="first N pairs of each file (smoke runs)")
    parser.add_argument("--write", action="store_true", help=f"replace '{section}' in docs/benchmarks.md")
    return parser.parse_args()


def percentile_ms(samples_s: list[float] | np.ndarray, q: float) -> float:
    return float(np.percentile(np.asarray(samples_s) * 1000.0, q))


def split_by_question(first: list[str], second: list[str], seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """Two halves of the pair indices sharing no question (pairs that would straddle are dropped).

    Connected components over questions go wholly to one side, so no question text is seen by
    both the calibration half and the evaluation half.
    """
    root = question_roots((a, b, True) for a, b in zip(first, second, strict=True))
    rng = random.Random(seed)
    side = {r: rng.random() < 0.5 for r in sorted(set(root.values()))}
    idx = np.arange(len(first))
    mask = np.array([side[root[a]] for a in first])
    return idx[mask], idx[~mask]


# ------------------------------------------------------------------ value-changed variants

_ZH_DIGITS = "零〇一二两三四五六七八九十百千万亿壹贰叁肆伍陆柒捌玖拾佰仟"
_ZH_UNITS = ("元块个天月年次张笔岁小时周倍位条件家台部本份种万千百亿期号日分秒斤公里米克吨股手层楼人"
             "套间辆只名道题页章节遍份趟瓶杯碗盒袋箱")
_ZH_NUM = re.compile(f"[{_ZH_DIGITS}]+(?=[{_ZH_UNITS}])")
_CAPITALS = str.maketrans("壹贰叁肆伍陆柒捌玖拾佰仟", "一二三四五六七八九十百千")


def _bump_digit_string(digits: str) -> str:
    """Change the most significant digit by one (9 → 8), keeping the length."""
    head = int(digits[0])
    new = head + 1 if head < 9 else head - 1
    if new == 0 and len(digits) > 1:
        new = 2
    return str(new) + digits[1:]


def _change_arabic(text: str, m: re.Match[str]) -> str:
    token = m.group(0)
    digits = token.replace(",", "")
    int_part, _, frac = digits.partition(".")
    if len(int_part) == 4 and 1900 <= int(int_part) <= 2099 and not frac:
        changed = str(int(int_part) + 1)  # a year: the next one, not 3016
    else:
        changed = _bump_digit_string(int_part)
    if "," in token:
        changed = f"{int(changed):,}"
    new = changed + (("." + frac) if frac else "")
    return text[:m.start()] + new + text[m.end():]


def _change_chinese(text: str, m: re.Match[str]) -> str | None:
    import cn2an

    token = m.group(0)
    plain = token.translate(_CAPITALS)
    try:
        value = int(cn2an.cn2an(plain, "smart"))
    except (ValueError, KeyError, TypeError):
        return None
    if value <= 0:
        return None
    changed = int(_bump_digit_string(str(value)))
    new = cn2an.an2cn(str(changed))
    follows = text[m.end():m.end() + 1]
    if new.startswith("二") and (changed >= 100 or (changed == 2 and follows not in "月日号期年点分秒")):
        new = "两" + new[1:]  # 两千 / 两天, not 二千 / 二天 (but 二月, 二号)
    if new == token:
        return None
    return text[:m.start()] + new + text[m.end():]


def value_variant(text: str, rng: random.Random) -> str | None:
    """``text`` with one number changed, or ``None`` when it has no number to change."""
    spots: list[tuple[str, re.Match[str]]] = [("ar", m) for m in re.finditer(r"\d+(?:,\d{3})*(?:\.\d+)?", text)]
    spots += [("zh", m) for m in _ZH_NUM.finditer(text)]
    rng.shuffle(spots)
    for kind, m in spots:
        out = _change_arabic(text, m) if kind == "ar" else _change_chinese(text, m)
        if out is not None and out != text:
            return out
    return None


# ------------------------------------------------------------------ trivial rewrites

_HALF_TO_FULL = str.maketrans({"?": "？", ",": "，", "!": "！", ":": "：", ";": "；", "(": "（", ")": "）"})
_FULL_TO_HALF = str.maketrans({v: k for k, v in {"?": "？", ",": "，", "!": "！", ":": "：", ";": "；",
                                                   "(": "（", ")": "）"}.items()})


def _toggle_trailing_q(text: str) -> str:
    stripped = text.rstrip()
    if stripped.endswith(("?", "？")):
        return stripped[:-1].rstrip()
    return stripped + ("？" if re.search(r"[\u4e00-\u9fff]", stripped) else "?")


def _spacing(text: str) -> str:
    if re.search(r"[\u4e00-\u9fff]", text):  # 我 想 借 钱: spaces around each Chinese character
        return "  " + re.sub(r"([\u4e00-\u9fff])", r" \1 ", text).strip() + " "
    return "  " + re.sub(r" ", "   ", text) + " "


def _full_width_digits(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "0" <= c <= "9" else c for c in text)


REWRITES = {
    "lower": str.lower,
    "upper": str.upper,
    "spacing": _spacing,
    "punct_width": lambda t: t.translate(_HALF_TO_FULL) if t.translate(_HALF_TO_FULL) != t
    else t.translate(_FULL_TO_HALF),
    "trailing_q": _toggle_trailing_q,
    "full_width_digits": _full_width_digits,
}


def rewrite(text: str, rng: random.Random) -> tuple[str, str]:
    """One trivial rewrite of ``text`` that actually changes it: ``(kind, new_text)``."""
    kinds = list(REWRITES)
    rng.shuffle(kinds)
    for kind in kinds:
        new = REWRITES[kind](text)
        if new != text:
            return kind, new
    return "trailing_q", _toggle_trailing_q(text)


# ------------------------------------------------------------------ caches and pair data

def temp_cache(config: object | None = None, name: str = "bench", embedder: object | None = None) -> object:
    """A real :class:`SemanticCache` on a fresh SQLite file in a temporary folder."""
    import atexit
    import shutil
    import tempfile

    from lastline import get_embedder, open_storage
    from lastline.cache import SemanticCache

    folder = Path(tempfile.mkdtemp(prefix=f"lastline-{name}-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return SemanticCache(open_storage(folder / "cache.db"), embedder or get_embedder("use", 1), config)  # type: ignore[arg-type]


def load_set(name: str) -> object:
    from lastline.cache.pairs import read_pairs

    return read_pairs(CACHE_DATA / f"{name}.csv")


def plain_cosine(embedder: object, first: list[str], second: list[str]) -> np.ndarray:
    """Cosine of the raw texts: what a fixed-threshold cache (GPTCache, RedisVL…) compares."""
    from lastline.cache.pairs import encode_unique

    vec = encode_unique(embedder, [*first, *second])
    a = np.stack([vec[t] for t in first])
    b = np.stack([vec[t] for t in second])
    return np.einsum("ij,ij->i", a, b).astype(np.float64)


def hit_rate_at_false_hit(scores: np.ndarray, labels: np.ndarray, fhr: float) -> tuple[float, float, float]:
    """Best fixed threshold whose false-hit rate (point estimate) is ≤ ``fhr``: (threshold, hit, fhr)."""
    y = labels.astype(bool)
    neg = np.sort(scores[~y])[::-1]
    k = int(np.floor(fhr * neg.size + 1e-9))
    t = float(np.nextafter(neg[k], np.inf)) if k < neg.size else float(np.min(scores))
    while k > 0 and neg[k - 1] >= t and neg[k - 1] == neg[k]:
        k -= 1
    hit = float((scores[y] >= t).mean())
    realised = float((neg >= t).mean())
    return t, hit, realised


def rate(mask: np.ndarray) -> float:
    return float(mask.mean()) if mask.size else float("nan")


def faiss_single_thread() -> None:
    """One OpenMP thread for FAISS: on 2 shared cores its default (all cores) spins ≈10× slower.

    Used by the accuracy benches only (it changes speed, not answers); ``cache_scale.py``
    measures both settings.
    """
    import faiss

    faiss.omp_set_num_threads(1)


class MemoEmbedder:
    """The real embedder's vectors, computed once in batches and then read from a dict.

    Batch encoding is ~10× faster per text than one call per lookup, so accuracy benches that
    push tens of thousands of lookups through the real cache finish in minutes; answers are the
    same (same model, same normalized text). Unknown texts fall through to the real embedder.
    """

    def __init__(self, inner: object, texts: list[str]) -> None:
        from lastline import normalize_text
        from lastline.cache.pairs import encode_unique

        self._inner = inner
        self.model_id, self.dim = inner.model_id, inner.dim  # type: ignore[attr-defined]
        self._vec = encode_unique(inner, [normalize_text(t) for t in texts if normalize_text(t)])

    def load(self) -> None:
        return None

    def encode(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._vec[t] if t in self._vec else self._inner.encode([t])[0]  # type: ignore[attr-defined]
                         for t in texts])
