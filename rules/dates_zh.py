"""Chinese dates and times: ``2024年6月15日``, ``二〇二四年六月十五日``, ``下周三下午3点``, ``明天``,
``本月十日``, ``15时20分``, ``两年`` (duration), ``5天前``; joined into ranges by :mod:`lastline.rules.dates`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, datetime, timedelta

from ._date_types import DateHit, add_durations, add_months, leap_year_from, week_of
from ._zh_time_words import DAY_NO, LUNAR_MONTHS, MONTH_NO, REL_MONTH, REL_YEAR, UNIT_CODES, zh_int
from .numbers import parse_number
from .regexes import alternation

__all__ = ["DATETIME_RE", "DATE_ANCHOR", "DURATION_ANCHOR", "DURATION_RE", "find_zh"]

_C = "零〇○一二两兩三四五六七八九十"
_REL_DAY = {"大前天": -3, "前天": -2, "昨天": -1, "昨日": -1, "昨晚": -1, "昨夜": -1, "今天": 0, "今日": 0,
            "今晨": 0, "今早": 0, "今晚": 0, "明天": 1, "明日": 1, "明早": 1, "明晚": 1, "后天": 2, "後天": 2,
            "大后天": 3, "大後天": 3}
#: Regnal and republican eras → the Gregorian year of their first year (康熙三年 = 1664): the
#: Qing and Ming eras, the Republic and a few Tang eras. A year inside one is read as written,
#: lunar month and day included (as the Recognizers-Text gold does).
ERAS = {"顺治": 1644, "康熙": 1662, "雍正": 1723, "乾隆": 1736, "嘉庆": 1796, "道光": 1821, "咸丰": 1851,
        "同治": 1862, "光绪": 1875, "宣统": 1909, "民国": 1912, "洪武": 1368, "永乐": 1403, "嘉靖": 1522,
        "万历": 1573, "崇祯": 1628, "贞观": 627, "开元": 713, "天宝": 742, "神龙": 705}
_WEEK_SHIFT = {"上上": -2, "下下": 2, "上": -1, "下": 1, "本": 0, "这": 0, "這": 0, "": 0}
#: Parts of the day as hour ranges (Recognizers-Text convention: morning 8–12, afternoon 12–16,
#: evening 16–20, night 20–24).
_PERIOD_RANGE = {"早上": (8, 12), "早晨": (8, 12), "早间": (8, 12), "上午": (8, 12), "早": (8, 12),
                 "中午": (11, 13), "下午": (12, 16), "午后": (12, 16), "傍晚": (16, 20), "晚上": (16, 20),
                 "晚间": (16, 20), "晚": (16, 20), "夜里": (20, 24), "夜间": (20, 24), "凌晨": (0, 6), "清晨": (5, 8)}
_PM = ("下午", "午后", "傍晚", "晚上", "晚间", "晚", "夜里", "夜间", "今晚", "明晚", "昨晚", "昨夜")
_WEEKDAY = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "1": 0, "2": 1, "3": 2,
            "4": 3, "5": 4, "6": 5, "7": 6}


_DATE = (
    rf"(?P<dp>(?:农历|農曆)?(?:(?P<rel>{alternation(_REL_DAY)})"
    r"|(?P<wk>上上|下下|上|下|本|这|這)?(?:个|個)?(?:周|星期|礼拜|禮拜|週)(?P<wd>[一二三四五六日天1-7])?"
    rf"|(?:(?P<ry>{alternation(REL_YEAR)})|(?P<era>{alternation(ERAS)})(?P<ey>元|\d{{1,2}}|[一二三四五六七八九十]{{1,3}})\s*年"
    r"|(?P<y>\d{4}|\d{2}|[零〇○一二三四五六七八九]{3,4}|[一二两]千(?:零?[一二三四五六七八九十]{1,3})?)\s*年)?(?:的)?\s*"
    r"(?:农历|農曆)?"
    rf"(?:(?P<rm>{alternation(REL_MONTH)})|(?P<m>{MONTH_NO}|[{''.join(LUNAR_MONTHS)}])\s*月份?)?\s*"
    rf"(?:(?P<d>{DAY_NO})\s*[日号號]|(?P<d2>初[一二三四五六七八九十]|廿[一二三四五六七八九]?)"
    r"|(?<=月)(?P<d3>三十一?|二十[一二三四五六七八九]?|十[一二三四五六七八九]?)"
    r"(?![\d一二三四五六七八九十百千万萬亿億个個人元块塊岁歲次年天倍份名位只件张張条條点點分%]))?))?"
)
_TIME = (
    r"\s*(?P<p>凌晨|清晨|早上|早晨|早间|上午|中午|午后|下午|傍晚|晚上|晚间|夜里|夜间|早(?![上晨间饭餐点])"
    r"|晚(?![上间饭餐点了安会辈]))?\s*"
    rf"(?:(?P<h>2[0-4]|[01]?\d|[{_C}]{{1,3}})\s*(?:点钟|点|點|时|時)"
    rf"(?:\s*(?P<mi>[0-5]\d|[1-9](?=\s*分)|[{_C}]{{2,3}}|[{_C}](?=\s*分))\s*分?|(?P<half>半)|(?P<q>一刻|三刻))?"
    rf"(?:\s*(?P<s>[0-5]?\d|[{_C}]{{1,3}})\s*秒)?"
    r"|(?P<ch>2[0-3]|[01]?\d):(?P<cm>[0-5]\d)(?::(?P<cs>[0-5]\d))?(?!\d))?"
)
DATETIME_RE = re.compile(r"(?=[0-9" + _C + r"今明昨前后後大上下本这這周星礼禮週凌清早中午傍晚夜去初农農"
                         + "".join(LUNAR_MONTHS)
                         + "".join(sorted({e[0] for e in ERAS})) + r"])"
                         + _DATE + _TIME)
_DUR_UNITS = ("年|个月|個月|(?<=半)月|周|星期|礼拜|禮拜|週|天|小时|小時|钟头|鐘頭|分钟|分鐘|秒钟|秒鐘|秒"
              "|时(?![间候代刻])")  # 两个半月: after 半 a bare 月 is the unit
DURATION_RE = re.compile(
    rf"(?=[0-9{_C}百半])(?<![0-9.{_C}百])(?P<n>\d{{1,9}}(?:\.\d{{1,6}})?|[{_C}百]{{1,12}}|半)\s{{0,3}}(?P<half1>半)?\s{{0,3}}"
    rf"(?:个|個)?\s{{0,3}}(?P<half3>半)?\s{{0,3}}(?P<u>{_DUR_UNITS})(?P<half2>半)?"
    r"(?:\s*(?:之|以)?(?P<dir>前|后|後)(?!天))?"
)


#: A character (or ``3:30``) every dated or timed match holds: each optional part of the grammar
#: that yields a value ends in one. On text without any, the grammar (all of whose parts are
#: optional, so it is tried at every digit and numeral) is skipped whole.
DATE_ANCHOR = re.compile(r"[年月日号號天晚晨早夜午周星礼禮週初廿点點时時]|\d:\d")
#: The same for durations: a unit of time.
DURATION_ANCHOR = re.compile(r"[年月周星礼禮週天时時钟鐘分秒]")


#: 现在 opening a range (``从现在到八点``, ``现在起至月底``): the moment of reference is its start. Alone
#: it is no entity — two questions that differ only by a 现在 ask the same thing.
_NOW_OPENS = re.compile(r"(?:现在|此刻|目前)(?:\s*(?:开始|起))?(?=\s*[到至])")


#: A clock time told by what it lacks: ``差五分十点`` / ``十点差五分`` (9:55), ``差一刻八点`` (7:45). A part of
#: the day before it is read here, unless a day comes first (``明天下午差五分三点``: composed with the day).
_SHORT_OF_RE = re.compile(
    r"(?:(?<![天日号號周期拜一二三四五六])(?P<p>凌晨|早上|上午|中午|下午|傍晚|晚上))?\s*(?:"
    rf"差\s*(?:(?P<n>[0-5]?\d|[{_C}]{{1,3}})\s*分(?:钟|鐘)?|(?P<q>一刻))\s*(?P<h>1[0-2]|0?[1-9]|[{_C}]{{1,3}})\s*[点點]"
    rf"|(?P<h2>1[0-2]|0?[1-9]|[{_C}]{{1,3}})\s*[点點]\s*差\s*(?:(?P<n2>[0-5]?\d|[{_C}]{{1,3}})\s*分(?:钟|鐘)?|(?P<q2>一刻)))"
)


def _short_of(folded: str) -> Iterator[DateHit]:
    for m in _SHORT_OF_RE.finditer(folded):
        hour = zh_int(m.group("h") or m.group("h2"))
        minutes = 15 if m.group("q") or m.group("q2") else zh_int(m.group("n") or m.group("n2"))
        if hour is None or minutes is None or not 1 <= hour <= 12 or not 1 <= minutes <= 30:
            continue
        hour -= 1
        if m.group("p") in _PM and hour < 12:
            hour += 12  # 下午差五分三点: 14:55
        yield DateHit("time", m.start(), m.end(), f"{hour:02d}:{60 - minutes:02d}:00")


def find_zh(folded: str, ref: datetime) -> Iterator[DateHit]:
    if "差" in folded:
        yield from _short_of(folded)
    if DATE_ANCHOR.search(folded):
        yield from _dated(folded, ref)
        for m in _NOW_OPENS.finditer(folded):
            yield DateHit("datetime", m.start(), m.end(), ref.replace(microsecond=0).isoformat())
    if DURATION_ANCHOR.search(folded):
        yield from _durations(folded, ref)


def _dated(folded: str, ref: datetime) -> Iterator[DateHit]:
    for m in DATETIME_RE.finditer(folded):
        if m.end() == m.start():
            continue
        hit = _datetime_hit(m, ref)
        if hit is not None:
            yield hit


#: What may follow a bare ``12号`` that is a day: a word of going, meeting or time (``我12号去``,
#: ``12号之前``, ``12号下午``); a noun (``3号楼``, ``12号线``, ``5号选手``) makes it a label, and a
#: ``12号`` standing alone is no date either (the Recognizers-Text model specs list it as a negative).
_BARE_DAY_NEXT = re.compile(r"[去来回走见出]|[到至]\s*(?:[12]?\d|3[01])\s*[号號]|之?前|之?后|以[前后]"
                            r"|上午|下午|晚上|早上|中午|凌晨|开始|截止")
#: ... or what may come before it: a word that announces a day (``到12号``, ``于5号``, ``从3号``).
_BARE_DAY_PREV = re.compile(r"(?:到|至|于|从|截止|直到)$")
#: A label that names a number (``房间号是``, ``编号：``): what follows is that number, not a day.
_LABEL_BEFORE = re.compile(r"[号號]\s*[是为:：]?\s*$")


def _bare_day(m: re.Match[str]) -> bool:
    """A ``12号`` with no month is a day of this month when what surrounds it reads as a date."""
    start, end = m.start("dp"), m.end("dp")
    before = m.string[start - 1:start] if start else ""
    label = _LABEL_BEFORE.search(m.string, max(0, start - 4), start) is not None  # 房间号是12号
    return m.group("dp").endswith(("号", "號")) and before not in ("第", "#") and not label \
        and not (before.isascii() and before.isalnum()) \
        and (_BARE_DAY_NEXT.match(m.string, end) is not None or _BARE_DAY_PREV.search(m.string, 0, start) is not None)


def _datetime_hit(m: re.Match[str], ref: datetime) -> DateHit | None:
    g = m.groupdict()
    day_value, precision = _date_part(g, ref, m)
    hour = None
    if g["h"] is not None or g["ch"] is not None:
        hour = zh_int(g["h"] if g["h"] is not None else g["ch"])
    end = m.end()
    if hour is None:
        period_hit = _period_range(m, day_value, precision)
        if period_hit is not None:
            return period_hit
        if day_value is None:
            return None
        end = m.end("dp")
        return DateHit("date", m.start("dp"), end, day_value)
    minute = zh_int(g["mi"] if g["h"] is not None else g["cm"]) or 0
    second = zh_int(g["s"] if g["h"] is not None else g["cs"]) or 0
    if g["half"]:
        minute = 30
    elif g["q"]:
        minute = 15 if g["q"] == "一刻" else 45
    period = g["p"] or (g["rel"] if g["rel"] in _PM else None)
    if period and ((period in _PM and hour < 12) or (period == "中午" and hour < 5)):
        hour += 12
    if hour == 24:
        hour = 0
    if hour > 23 or minute > 59 or second > 59:
        return None
    if g["h"] is not None and not g["p"] and day_value is None and not _clock_context(m):
        return None
    clock = f"{hour:02d}:{minute:02d}:{second:02d}"
    start = m.start("dp") if day_value is not None else (m.start("p") if g["p"] else m.start("h") if g["h"]
                                                         else m.start("ch"))
    if day_value is None:
        return DateHit("time", start, end, clock)
    if precision != "day":
        return DateHit("date", m.start("dp"), m.end("dp"), day_value)
    return DateHit("datetime", start, end, f"{day_value}T{clock}")


def _period_range(m: re.Match[str], day_value: str | None, precision: str) -> DateHit | None:
    """``明天上午`` → 08:00–12:00 of that day; a lone ``上午``/``晚上`` → a time range."""
    p = m.group("p")
    if not p or (p in ("早", "晚") and day_value is None):
        return None
    lo, hi = _PERIOD_RANGE[p]
    end_clock = "23:59:59" if hi == 24 else f"{hi:02d}:00:00"
    if day_value is None:
        if m.start("p") != m.start() or len(m.group().strip()) != len(p):
            return None
        return DateHit("timerange", m.start("p"), m.end("p"), f"{lo:02d}:00:00/{end_clock}")
    if precision != "day":
        return None
    return DateHit("daterange", m.start("dp"), m.end("p"), f"{day_value}T{lo:02d}:00:00/{day_value}T{end_clock}")


#: A clock hour after ``到`` / ``至``: what makes a bare hour before it the start of a range (``三点到五点``).
_TO_CLOCK = re.compile(r"\s*[到至]\s*(?:[0-9]{1,2}|[零〇一二两三四五六七八九十]{1,3})\s*[点點时時]")


def _clock_context(m: re.Match[str]) -> bool:
    """A bare ``3点`` is a time only with minutes, 钟, a digit hour or a range (at either end:
    ``三点到五点``); ``三点建议`` is not."""
    g = m.groupdict()
    before = m.string[max(0, m.start() - 2):m.start()]
    after = m.string[m.end():m.end() + 2]
    return bool(g["mi"] or g["half"] or g["q"] or g["s"] or (g["h"] and g["h"].isdigit())
                or "钟" in m.group() or g["h"] in ("零", "〇") or "到" in before or "至" in before
                or after in ("之后", "之前", "以后", "以前") or _TO_CLOCK.match(m.string, m.end()))


def _date_part(g: dict[str, str | None], ref: datetime, m: re.Match[str]) -> tuple[str | None, str]:
    today = ref.date()
    if g["rel"]:
        return (today + timedelta(days=_REL_DAY[g["rel"]])).isoformat(), "day"
    if m.group("dp") and re.search("周|星期|礼拜|禮拜|週", m.group("dp") or "") and not (g["y"] or g["m"]):
        shift = _WEEK_SHIFT[g["wk"] or ""]
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=shift)
        if g["wd"]:
            return (monday + timedelta(days=_WEEKDAY[g["wd"]])).isoformat(), "day"
        if g["wk"] is None:
            return None, ""
        return week_of(monday), "week"
    year = month = day = None
    if g["ry"]:
        year = today.year + REL_YEAR[g["ry"]]
    elif g["era"]:
        nth = 1 if g["ey"] == "元" else zh_int(g["ey"])
        if nth is None or nth < 1:
            return None, ""
        year = ERAS[g["era"]] + nth - 1
    elif g["y"]:
        year = zh_int(g["y"])
        if year is not None and len(g["y"]) == 2 and g["y"].isdigit():
            if not (g["m"] or g["y"].startswith("0") or year >= 30):
                return None, ""
            year += 2000 if year < 30 else 1900
    if g["rm"]:
        shifted = add_months(today.replace(day=1), REL_MONTH[g["rm"]])
        year, month = (year, shifted.month) if year is not None and not REL_MONTH[g["rm"]] \
            else (shifted.year, shifted.month)
    elif g["m"]:
        month = zh_int(g["m"])
    if g["d3"] and month is not None:  # 八月十五: a worded day right after its month needs no 日
        day = zh_int(g["d3"])
    if g["d2"] and month is not None:
        day = zh_int(g["d2"].replace("廿", "二十"))
    if g["d"]:
        day = zh_int(g["d"])
        if month is None and not (m.group("dp") or "").endswith("日") and not _bare_day(m):
            return None, ""  # a bare "12号" is too often a room or a size
    if year is None and month is None and day is None:
        return None, ""
    if day is not None:
        explicit_year = year is not None
        month = month or today.month
        year = year or today.year
        try:
            return date(year, month, day).isoformat(), "day"
        except ValueError:
            if explicit_year or (month, day) != (2, 29):
                return None, ""
            return date(leap_year_from(year), 2, 29).isoformat(), "day"  # 2月29日: the next leap year
    if month is not None:
        if not 1 <= month <= 12:
            return None, ""
        return f"{year or today.year:04d}-{month:02d}", "month"
    return f"{year:04d}", "year"


def _durations(folded: str, ref: datetime) -> Iterator[DateHit]:
    """Durations, adjacent ones joined: ``8天20时`` / ``8天又二十个小时`` → P8DT20H."""
    pending: DateHit | None = None
    for hit in _single_durations(folded, ref):
        if pending is not None and hit.type == pending.type == "duration" \
                and folded[pending.end:hit.start].strip() in ("", "又", "零"):
            pending = DateHit("duration", pending.start, hit.end, add_durations(pending.value, hit.value))
            continue
        if pending is not None:
            yield pending
        pending = hit
    if pending is not None:
        yield pending


def _single_durations(folded: str, ref: datetime) -> Iterator[DateHit]:
    for m in DURATION_RE.finditer(folded):
        raw, unit = m.group("n"), m.group("u")
        if raw == "半":
            n = 0.5
        else:
            v = parse_number(raw)
            if v is None:
                continue
            n = float(v)
        if unit == "年" and raw.isdigit() and (len(raw) >= 3 or raw.startswith("0")):
            continue  # 2009年 is a year, not 2009 years
        if m.group("half1") or m.group("half2") or m.group("half3"):  # 三年半, 一个半小时
            n += 0.5
        code = UNIT_CODES[unit]
        if m.group("dir"):
            hit = _offset(m, n, code, ref)
            if hit:
                yield hit
            continue
        yield DateHit("duration", m.start(), m.end(), _iso_duration(n, code))


def _iso_duration(n: float, code: str) -> str:
    num = str(int(n)) if n == int(n) else str(n)
    if code in ("H", "MIN", "S"):
        return f"PT{num}{code[0]}"
    return f"P{num}{code}"


def _offset(m: re.Match[str], n: float, code: str, ref: datetime) -> DateHit | None:
    """``5天前``, ``两周后``; a half counts in the unit below it (``半年前``: six months, ``两个半月后``: two
    months and 15 days, ``一个半小时后``: 90 minutes); a half day or week names no day, so it is none."""
    sign = -1 if m.group("dir") == "前" else 1
    if code in ("H", "MIN", "S"):
        delta = {"H": timedelta(hours=n), "MIN": timedelta(minutes=n), "S": timedelta(seconds=n)}[code]
        return DateHit("datetime", m.start(), m.end(), (ref + sign * delta).replace(microsecond=0).isoformat())
    d = ref.date()
    if code in ("D", "W"):
        days = n * (7 if code == "W" else 1)
        if days != int(days):
            return None
        d += timedelta(days=sign * int(days))
    else:
        months = n * (12 if code == "Y" else 1)
        whole = int(months)
        if months - whole not in (0, 0.5):
            return None
        d = add_months(d, sign * whole) + timedelta(days=sign * 15 * (months != whole))
    return DateHit("date", m.start(), m.end(), d.isoformat())
