"""Chinese time vocabulary shared by the date grammar (:mod:`.dates_zh`) and the worded-period
grammar (:mod:`.dates_zh_periods`): relative years, duration units and small numbers.

Kept apart so that neither grammar imports the other's private names.
"""

from __future__ import annotations

from .numbers import DIGIT_VALUES, parse_number

__all__ = ["DAY_NO", "LUNAR_MONTHS", "MONTH_NO", "REL_MONTH", "REL_YEAR", "UNIT_CODES", "zh_int"]

#: Year words → offset from the reference year.
REL_YEAR = {"今年": 0, "明年": 1, "去年": -1, "前年": -2, "后年": 2, "後年": 2}
#: Month words → offset from the reference month.
REL_MONTH = {"本月": 0, "这个月": 0, "這個月": 0, "上个月": -1, "上個月": -1, "上月": -1, "下个月": 1, "下個月": 1,
             "下月": 1}
#: A month's number before 月 and a day's before 日/号, in digits or Chinese (``12``, ``十二``; ``31``, ``三十一``).
MONTH_NO = r"(?:1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])"
DAY_NO = r"(?:3[01]|[12]\d|0?[1-9]|三十一?|二十[一二三四五六七八九]?|十[一二三四五六七八九]?|[一二三四五六七八九])"
#: The lunar months that have names of their own (正月 1, 冬月 11, 腊月 12), written before 月.
LUNAR_MONTHS = {"正": 1, "冬": 11, "腊": 12, "臘": 12}
#: Duration unit words → ISO 8601 designator (``MIN`` for minutes, to tell them from months).
UNIT_CODES = {"年": "Y", "个月": "M", "個月": "M", "月": "M", "周": "W", "星期": "W", "礼拜": "W", "禮拜": "W",
              "週": "W", "天": "D", "日": "D", "小时": "H", "小時": "H", "钟头": "H", "鐘頭": "H", "个钟头": "H",
              "分钟": "MIN", "分鐘": "MIN", "秒钟": "S", "秒鐘": "S", "秒": "S", "时": "H"}


def zh_int(s: str | None) -> int | None:
    """A whole number written in digits or Chinese (``初五`` → 5, ``正`` → 1, ``腊`` → 12, ``二〇二四`` → 2024)."""
    if not s:
        return None
    s = s.replace(" ", "")
    if s.startswith("初"):
        s = s[1:]
    if s in LUNAR_MONTHS:
        return LUNAR_MONTHS[s]
    if s.isdigit():
        return int(s)
    if len(s) == 4 and all(ch in DIGIT_VALUES for ch in s):
        return int("".join(str(DIGIT_VALUES[ch]) for ch in s))
    v = parse_number(s)
    return int(v) if v is not None and v == int(v) else None
