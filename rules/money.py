"""Money: an amount with its currency, from ``人民币伍拾万元整``, ``¥1,200.50``, ``$3k``, ``USD 20``,
``5千元``, ``五千块``, ``50元6角三分`` or ``1200亿美元``.

The value is ``{"amount": "<decimal>", "currency": "<ISO 4217>"}`` so ``五千元``, ``5000元`` and
``5,000元`` compare equal. ``¥`` is read as CNY in Chinese text and JPY otherwise; a bare ``$`` is USD.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from decimal import Decimal

from ._types import Entity, format_decimal
from .currency_names import COUNTRY_CURRENCIES, MINOR_ALONE, MINOR_UNITS
from .numbers import CN_DIGITS, CN_NUM_CHARS, DIGIT_VALUES, DOT_GROUPED, INDIAN_GROUPED, SPACE_GROUPED, parse_number
from .numbers_en import WordNumber, find_word_numbers
from .regexes import alternation

__all__ = ["CURRENCIES", "CURRENCY_NAMES", "UNIT_NAMES", "find_money", "parse_money"]

#: Written currency → ISO 4217 code (keys are matched longest first).
CURRENCIES = {
    "US$": "USD", "HK$": "HKD", "NT$": "TWD", "A$": "AUD", "C$": "CAD", "S$": "SGD", "$": "USD",
    "€": "EUR", "£": "GBP", "₩": "KRW", "₹": "INR", "¥": "CNY",
    "RMB": "CNY", "CNY": "CNY", "USD": "USD", "EUR": "EUR", "GBP": "GBP", "JPY": "JPY", "HKD": "HKD",
    "人民币": "CNY", "元人民币": "CNY", "元": "CNY", "块钱": "CNY", "块": "CNY", "塊": "CNY", "圆": "CNY",
    "圓": "CNY", "美元": "USD", "美圆": "USD", "美圓": "USD", "美金": "USD", "欧元": "EUR", "歐元": "EUR",
    "英镑": "GBP", "英鎊": "GBP", "日元": "JPY", "日圆": "JPY", "港元": "HKD", "港币": "HKD", "港幣": "HKD",
    "新台币": "TWD", "台币": "TWD", "台幣": "TWD", "韩元": "KRW", "澳元": "AUD", "加元": "CAD",
    "卢布": "RUB", "dollars": "USD", "dollar": "USD", "yuan": "CNY", "euros": "EUR", "euro": "EUR",
    "pounds": "GBP", "yen": "JPY",
    # Not ISO 4217, but the code exchanges use (ISO reserves X-codes for such units: XBT is rare).
    "us dollars": "USD", "us dollar": "USD", "u.s. dollars": "USD", "chinese yuan": "CNY", "francs": "CHF",
    "franc": "CHF", "turkish lira": "TRY", "rupees": "INR", "rupee": "INR", "bitcoins": "BTC", "bitcoin": "BTC",
    # Pence sterling: the code the London exchange quotes share prices in (100 GBX = 1 GBP).
    "pence": "GBX",
    "usd": "USD", "rmb": "CNY", "cny": "CNY", "eur": "EUR", "gbp": "GBP", "jpy": "JPY", "hkd": "HKD",
    "bucks": "USD", "buck": "USD", "quid": "GBP", "BTC": "BTC",
    "₡": "CRC", "₭": "LAK", "c $": "CAD", "c$": "CAD", "cad$": "CAD", "mxn$": "MXN", "mex$": "MXN", "Mex$": "MXN",
    "个比特币": "BTC", "個比特幣": "BTC", "比特币": "BTC", "比特幣": "BTC",
}
#: ISO 4217 codes of the currencies English contracts and chats name most (beyond those above), and
#: their names in English: "CHF 200", "200 Swiss francs", "Rs. 5000".
CURRENCY_NAMES = {
    "AUD": "australian dollars", "CAD": "canadian dollars", "CHF": "swiss francs", "SGD": "singapore dollars",
    "NZD": "new zealand dollars", "SEK": "swedish kronor", "NOK": "norwegian kroner", "DKK": "danish kroner",
    "INR": "indian rupees", "KRW": "korean won", "BRL": "brazilian reais", "MXN": "mexican pesos",
    "ZAR": "south african rand", "RUB": "russian rubles", "TRY": "turkish liras", "PLN": "polish zlotys",
    "THB": "thai baht", "IDR": "indonesian rupiahs", "MYR": "malaysian ringgits", "PHP": "philippine pesos",
    "AED": "uae dirhams", "SAR": "saudi riyals", "ILS": "israeli shekels", "CZK": "czech korunas",
    "HUF": "hungarian forints", "TWD": "taiwan dollars", "VND": "vietnamese dong", "NGN": "nigerian naira",
    "EGP": "egyptian pounds", "PKR": "pakistani rupees",
}
#: Currency units named without their country, where one currency is meant ("500 rubles", "20 zlotys",
#: "฿300", "₽ 100"); units many countries share are left out ("dinars", "kroner", "shillings"), except
#: the peso, read as the most traded one (MXN), as a bare ``$`` reads USD.
UNIT_NAMES = {
    "rubles": "RUB", "ruble": "RUB", "roubles": "RUB", "rouble": "RUB", "baht": "THB", "zlotys": "PLN",
    "zloty": "PLN", "złoty": "PLN", "forints": "HUF", "forint": "HUF", "shekels": "ILS", "shekel": "ILS",
    "liras": "TRY", "lira": "TRY", "rupiahs": "IDR", "rupiah": "IDR", "ringgits": "MYR", "ringgit": "MYR",
    "naira": "NGN", "hryvnias": "UAH", "hryvnia": "UAH", "korunas": "CZK", "koruna": "CZK", "kronor": "SEK",
    "krona": "SEK", "rand": "ZAR", "won": "KRW", "renminbi": "CNY", "pesos": "MXN", "peso": "MXN",
    "dirhams": "AED", "dirham": "AED", "riyals": "SAR", "riyal": "SAR", "reais": "BRL", "taka": "BDT",
    "cedis": "GHS", "cedi": "GHS", "pennies": "GBX", "penny": "GBX", "kuai": "CNY",
    "₽": "RUB", "₺": "TRY", "₴": "UAH", "₱": "PHP", "฿": "THB", "₪": "ILS", "₫": "VND", "₦": "NGN", "₵": "GHS",
    "₸": "KZT", "zł": "PLN", "Kč": "CZK",
}
for _unit, _code in UNIT_NAMES.items():
    CURRENCIES.setdefault(_unit, _code)
for _code, _name in CURRENCY_NAMES.items():
    CURRENCIES.setdefault(_code, _code)  # upper case only: "try", "php", "rub" are words
    CURRENCIES.setdefault(_name, _code)  # plural
    CURRENCIES.setdefault(re.sub(r"(?<=[a-z])s$", "", _name), _code)  # singular
for _name, _code in COUNTRY_CURRENCIES.items():
    CURRENCIES.setdefault(_name, _code)  # 20 jamaican dollars, 10 kuwaiti dinars
CURRENCIES.update({"hong kong dollars": "HKD", "hong kong dollar": "HKD", "japanese yen": "JPY",
                   "british pounds": "GBP", "british pound": "GBP", "pounds sterling": "GBP", "pound sterling": "GBP",
                   "rs.": "INR", "rs": "INR", "Rs.": "INR", "Rs": "INR",
                   "AU$": "AUD", "CA$": "CAD", "NZ$": "NZD", "R$": "BRL", "SFr.": "CHF", "sfr": "CHF",
                   # lower case and spaced, as newswire text writes them: "hk $ 100", "eur 20,000"
                   "hk $": "HKD", "hk$": "HKD", "nt $": "TWD", "nt$": "TWD", "us $": "USD", "us$": "USD",
                   "u.s. $": "USD", "u.s.$": "USD", "nz $": "NZD", "nz$": "NZD", "au $": "AUD", "au$": "AUD"})
#: ISO codes that are no English word, in lower case ("chf 5", "5 sgd"); "try", "php", "rub" are words.
for _code in [*CURRENCY_NAMES, "USD", "EUR", "GBP", "JPY", "CNY", "HKD"]:
    if _code.lower() not in ("try", "php", "rub", "cad"):
        CURRENCIES.setdefault(_code.lower(), _code)
#: Lower-case codes read before an amount only when a digit follows ("eur 20,000", not "usd" alone).
_LOWER_CODES = sorted(k for k in CURRENCIES if re.fullmatch(r"[a-z]{3}", k) and k.upper() in CURRENCIES.values())
#: Written before the amount (any order: :func:`alternation` tries the longer of ``US$`` / ``$`` first).
_PREFIXES = ["dollars", "dollar", "cad$", "mxn$", "mex$", "Mex$", "c $", "Rs.", "Rs",
             "US$", "HK$", "NT$", "AU$", "CA$", "NZ$", "R$", "A$", "C$", "S$", "SFr.", "sfr", "RMB",
             "hk $", "hk$", "nt $", "nt$", "us $", "us$", "u.s. $", "u.s.$", "nz $", "nz$", "au $", "au$", "yen",
             "CNY", "USD", "EUR", "GBP", "JPY", "HKD",
             "人民币", "美元", "港币", "港元", "欧元", "英镑", "日元", "$", "€", "£", "¥", "₩", "₹",
             # symbols that also follow the amount (100 ₽): not in _SYMBOLS
             "₽", "₺", "₴", "₱", "฿", "₪", "₫", "₦", "₵", "₸", "₡", "₭"]
_SYMBOLS = ("$", "€", "£", "¥", "₩", "₹", "US$", "HK$", "NT$", "AU$", "CA$", "NZ$", "R$", "A$", "C$", "S$", "SFr.",
            "hk $", "hk$", "nt $", "nt$", "us $", "us$", "u.s. $", "u.s.$", "nz $", "nz$", "au $", "au$",
            "c $", "c$", "cad$", "mxn$", "mex$",
            "Mex$")
_SUFFIXES = [k for k in CURRENCIES if k not in _SYMBOLS]
#: Currency names in words match in any case ("200 Swiss Francs"); codes and symbols only as written.
_NAME_SUFFIXES = [k for k in _SUFFIXES if k.isascii() and k.islower() and (len(k) > 3 or " " in k)]
_OTHER_SUFFIXES = [k for k in _SUFFIXES if k not in _NAME_SUFFIXES]
#: A decimal comma, as most of Europe writes amounts: ``€ 3,50``, ``1.234,56 EUR`` (two decimals, so
#: ``$20,300`` keeps its thousands comma). Read only beside a currency: a bare ``1,3`` stays apart. A full
#: stop may end the sentence after it (``it costs € 3,50.``).
_EURO_NUM = r"\d{1,3}(?:\.\d{3})+,\d{2}(?![\d,]|\.\d)|\d+,\d{2}(?![\d,]|\.\d)"
_EURO_RE = re.compile(_EURO_NUM)
#: A whole and a fraction in digits, as share prices were quoted: ``$ 3 1/2``.
_MIXED_NUM = r"\d{1,9}[ ]\d{1,2}/\d{1,3}(?![\d/])"
_MIXED_RE = re.compile(r"(\d+) (\d+)/(\d+)")
_NUM = (rf"{_MIXED_NUM}|{_EURO_NUM}|{DOT_GROUPED}|{INDIAN_GROUPED}|{SPACE_GROUPED}"
        rf"|(?:\d{{1,3}}(?:,\d{{3}})+(?:\.\d+)?|\d+(?:\.\d+)?)(?:[十百千万亿萬億](?:\d+|[{CN_DIGITS}])?)*"
        rf"|[{CN_NUM_CHARS}]+(?:[点點][{CN_DIGITS}]+)?|(?<=[$€£¥])\.\d{{1,2}}(?![\d,]|\.\d)")
_CENT_DIGIT = f"[0-9{CN_DIGITS}]"
#: The characters an amount can start with (a digit, a numeral, or a prefix's first character): a
#: cheap look-ahead so the long prefix alternation is tried only there.
_STARTS = "".join(sorted({p[0] for p in [*_PREFIXES, *_LOWER_CODES]} - set("0123456789")
                         - set("ABCDEFGHIJKLMNOPQRSTUVWXYZ")))
MONEY_RE = re.compile(
    rf"(?=[0-9{CN_NUM_CHARS}A-Z{re.escape(_STARTS)}])(?<![A-Za-z])"
    # Any other three capitals before digits are tried as a code (one branch, not thirty): parse_money
    # keeps the ones CURRENCY_NAMES knows ("CHF 200"), drops the rest ("ABC 12").
    r"(?P<pre>" + alternation(re.escape(p) for p in _PREFIXES) + r"|[A-Z]{3}(?=[ ]{0,2}\d)|(?:"
    + alternation(_LOWER_CODES) + r")(?=[ ]{0,2}\d))?[ ]{0,2}"
    rf"(?P<num>{_NUM})(?P<k>MM(?![A-Za-z])|[kKmMbB](?![A-Za-z])"
    r"|[ ]?(?:millions?|billions?|trillions?|thousands?|lakhs?|crores?|mln|bln|mn|bn|tn)\b)?"
    r"[ ]{0,2}"
    r"(?P<suf>(?=[A-Za-z])(?i:" + alternation(re.escape(s) for s in _NAME_SUFFIXES) + ")|"
    + alternation(re.escape(s) for s in _OTHER_SUFFIXES) + r"|[$€£¥](?![ ]{0,2}\d))?"
    # The scale after the code, as traders write it: "75 USD million" (only when none came before it).
    r"(?(k)|(?(suf)(?:[ ](?P<k2>(?:million|billion|trillion|thousand)s?)\b)?))(?P<zheng>整|正)?"
    # Two digits after the unit are its cents ("17 USD 25"), unless a word follows them ("5 dollars 10
    # times"); "more" / "less" / "extra" say the amount goes on ("15 USD 50 more").
    r"(?(suf)(?:[ ](?P<minor>\d{2})(?!\d|[.,]\d|[ ]?%|[ ]?(?!(?:more|less|extra)\b(?![ ]+times?\b))[A-Za-z0-9])"
    r"|[ ]+(?:and[ ]+)?(?P<minor_cents>\d{1,2})[ ]?cents?\b)?)"
    rf"(?:(?P<jiao>{_CENT_DIGIT})[角毛])?(?:(?P<fen>{_CENT_DIGIT})分)?"
    rf"(?:[又零]?(?P<cents>[0-9{CN_DIGITS}十]{{1,3}})美分)?"
)
_MAG = {"k": 1000, "K": 1000, "m": 10**6, "M": 10**6, "MM": 10**6, "b": 10**9, "B": 10**9, "thousand": 1000,
        "million": 10**6, "mn": 10**6, "mln": 10**6, "billion": 10**9, "bn": 10**9, "bln": 10**9, "trillion": 10**12,
        "tn": 10**12, "lakh": 10**5, "crore": 10**7}
_ASCII_SUFFIX = re.compile(r"[A-Za-z]+")


def parse_money(match: re.Match[str], cjk: bool) -> tuple[Decimal, str] | None:
    """Amount and ISO code of one :data:`MONEY_RE` match, or ``None`` if it names no currency."""
    pre, suf = match.group("pre"), match.group("suf")
    if pre and pre not in CURRENCIES:
        pre = None  # three capitals that are no code
    if not pre and not suf:
        return None
    num = match.group("num")
    mixed = _MIXED_RE.fullmatch(num)
    if mixed:
        if not pre or not int(mixed.group(3)):
            return None  # "3 1/2 dollars" is rare; "12 1/2" alone no amount
        num = str(int(mixed.group(1)) + Decimal(int(mixed.group(2))) / int(mixed.group(3)))
    elif _EURO_RE.fullmatch(num):
        num = num.replace(".", "").replace(",", ".")  # 1.234,56 → 1234.56
    amount = parse_number(num)
    if amount is None:
        return None
    if match.group("k") or match.group("k2"):
        scale = (match.group("k") or match.group("k2")).strip()
        amount *= _MAG.get(scale) or _MAG[scale[:-1]]  # 3 millions dollars: the plural is the singular's
    if match.group("jiao"):
        amount += Decimal(_digit(match.group("jiao"))) / 10
    if match.group("fen"):
        amount += Decimal(_digit(match.group("fen"))) / 100
    if match.group("minor") and not match.group("jiao") and suf and suf.lower() in (
            "usd", "eur", "gbp", "dollars", "dollar", "euros", "euro", "pounds", "cad", "aud"):
        amount += Decimal(match.group("minor")) / 100  # 17 USD 25, 15 dollars 50
    if match.group("minor_cents") and suf and CURRENCIES.get(suf.lower(), "") in ("USD", "EUR", "CAD", "AUD"):
        amount += Decimal(match.group("minor_cents")) / 100  # 3 dollars and 50 cents
    if match.group("cents"):
        cents = parse_number(match.group("cents"))
        if cents is not None and cents < 100:
            amount += cents / 100
    if (suf and suf not in ("元", "块", "块钱", "塊", "圆", "圓")) or not pre:
        code = CURRENCIES.get(suf) or CURRENCIES[suf.lower()]  # a name in any case: "Swiss Francs"
    else:
        code = CURRENCIES[pre]
    if ((pre == "¥" and not suf) or suf == "¥") and not cjk:
        code = "JPY"  # ¥ 2000 and 2000 ¥ alike
    return amount, code


def _digit(ch: str) -> int:
    return int(ch) if ch.isdigit() else DIGIT_VALUES[ch]


#: Millions / thousands written into the code, as finance does: ``120 MEUR``, ``5 kUSD``.
_SCALED_CODE = re.compile(r"(?<![\w.,])(?P<n>\d+(?:\.\d+)?)[ ]?(?P<k>[MmKk])(?P<code>EUR|USD|GBP|CHF|JPY|CNY)\b",
                          re.IGNORECASE)


def find_money(text: str, folded: str, cjk: bool) -> Iterator[Entity]:
    """Amounts with a currency sign, code or unit; bare numbers are left to ``find_numbers``."""
    for sm in _SCALED_CODE.finditer(folded):
        amount = Decimal(sm.group("n")) * (10**6 if sm.group("k") in "Mm" else 1000)
        yield Entity("money", text[sm.start():sm.end()], sm.start(), sm.end(),
                     {"amount": format_decimal(amount), "currency": sm.group("code").upper()})
    for m in MONEY_RE.finditer(folded):
        suf = m.group("suf")
        if suf and _ASCII_SUFFIX.fullmatch(suf) and m.end("suf") < len(folded) \
                and folded[m.end("suf")].isalpha():
            continue  # "5 euroland" is not money
        parsed = parse_money(m, cjk)
        if parsed is None:
            continue
        amount, code = parsed
        start, end = m.span()
        if m.group("pre") and m.group("pre") not in CURRENCIES:
            start = m.start("num")  # "ABC 12 dollars": the capitals were no code
        while end > start and folded[end - 1] == " ":
            end -= 1
        amount, end = _with_minor(folded, end, amount, code)
        yield Entity("money", text[start:end], start, end,
                     {"amount": format_decimal(amount), "currency": code})


#: A count of minor units after an amount: ``5 pounds 50 pence``, ``twenty rubles fifty kopecks``, ``100
#: pesos and 50 centavos`` (see :data:`MINOR_UNITS`).
_MINOR_AFTER = re.compile(
    r"(?:[ ]*,)?[ ]+(?:and[ ]+)?(?P<n>\d{1,3}(?![\d.,])|[a-z]+(?:[ -][a-z]+)?)[ ]?"
    r"(?P<u>" + alternation(re.escape(n) for n in MINOR_UNITS) + r")\b", re.IGNORECASE)


def _with_minor(folded: str, end: int, amount: Decimal, code: str) -> tuple[Decimal, int]:
    """``amount`` and the end of its span, with the minor units right after ``end`` added when they divide
    ``code`` (pence follow pounds, kopecks rubles: ``5 dollars 50 pence`` keeps its 5 dollars alone)."""
    m = _MINOR_AFTER.match(folded, end)
    if m is None:
        return amount, end
    codes, share = MINOR_UNITS[m.group("u").lower()]
    if code not in codes:
        return amount, end
    count_text = m.group("n")
    if count_text[0].isdigit():
        count = Decimal(count_text)
    else:
        found = find_word_numbers(count_text.lower(), lone_one=True)
        if len(found) != 1 or (found[0].start, found[0].end) != (0, len(count_text)):
            return amount, end
        count = found[0].value
    if count != int(count) or not 0 < count * share < 1:
        return amount, end  # "5 pounds 120 pence" names two amounts
    return amount + count * share, m.end()


#: Currency names written in words (every one :data:`CURRENCIES` knows: ``swiss francs``, ``bucks``,
#: ``pence``), as they follow an amount in words.
_WORD_NAMES = [k for k in CURRENCIES if re.fullmatch(r"[a-z][a-z. ]*[a-z]", k) and len(k) > 2]
#: A currency word right after an amount in English words: ``five million yen``, ``one-yen``, ``ten bucks``;
#: ``cents`` alone are hundredths of a dollar (``twenty-five cents``). The cents may go unnamed when they
#: close the clause, as amounts are spoken: ``thirteen dollars forty five.``
_WORD_UNIT = re.compile(
    r"[ \-]?(?P<u>" + alternation(re.escape(n) for n in _WORD_NAMES) + r"|cents?)\b"
    r"(?:[ ]+(?:and[ ]+)?(?P<cents>[a-z\- ]+?)[ ]+cents?\b"
    r"|[ ]+(?P<bare>[a-z]+(?:[ \-][a-z]+)?)(?=[ ]*(?:[.,;:!?)]|$)))?",
    re.IGNORECASE,
)
#: The units whose unnamed hundredths may follow them in words (``forty five`` after ``dollars``).
_HUNDREDTHS_NAMED_BY_UNIT = frozenset({"USD", "EUR", "GBP", "CAD", "AUD", "NZD", "HKD", "SGD"})
#: One unit named by its article: ``a dollar``, ``an euro``, ``a buck`` (singular names only: "a dollars"
#: is no amount; "a pound of flour" is a weight and "a yen for travel" a wish, so both are left out; "half a
#: dollar" is half of one, left to the word numbers).
_ARTICLE_UNIT = re.compile(r"(?<!half )\b(?i:an?)[ ]+"
                           r"(?P<u>(?i:dollar|euro|buck|quid|yuan|rupee|franc|peso|rouble|ruble))\b"
                           r"(?![ ]+(?i:bills?|coins?|notes?|signs?|store|shop|menu|value|amount))")
#: Cents in digits: ``99 cents``, ``50¢``, ``a 12-cent dividend`` (hundredths of a dollar; ``3 dollars and 50
#: cents`` is read whole above).
_DIGIT_CENTS = re.compile(r"(?<![\w.,$])(?P<n>\d{1,3}(?:\.\d+)?)[ \-]?(?:cents?\b|¢)", re.IGNORECASE)


#: A minor unit alone after an amount, where it names one currency (:data:`MINOR_ALONE`): ``fifty kopecks``.
_MINOR_ALONE_RE = re.compile(r"[ \-]?(?P<u>" + alternation(re.escape(n) for n in MINOR_ALONE) + r")\b", re.IGNORECASE)
_DIGIT_MINOR = re.compile(r"(?<![\w.,$])(?P<n>\d{1,3}(?:,\d{3})*(?:\.\d+)?)" + _MINOR_ALONE_RE.pattern,
                          re.IGNORECASE)
#: Pence written as ``50p`` (one or two digits joined to the ``p``: ``1080p`` is a video resolution).
_PENCE_P = re.compile(r"(?<![\w.,$£€])(?P<n>[1-9]\d?)p\b(?!\.\w)")


def find_word_money(text: str, folded: str, words: Sequence[WordNumber] | None = None) -> Iterator[Entity]:
    """Amounts written in English words before a currency word (``thirteen dollars and forty-five cents``).

    ``words``: the text's word numbers, a lone ``one`` included, when the caller has read them already.
    """
    if words is None:
        words = find_word_numbers(folded, lone_one=True)
    by_start = {w.start: w for w in words}
    taken = 0  # end of the last amount: its cents are no amount of their own
    for w in words:
        if w.start < taken:
            continue
        minor = _MINOR_ALONE_RE.match(folded, w.end)
        if minor is not None:
            code, share = MINOR_ALONE[minor.group("u").lower()]  # fifty kopecks, twenty euro cents
            taken = minor.end()
            yield Entity("money", text[w.start:taken], w.start, taken,
                         {"amount": format_decimal(w.value * share), "currency": code})
            continue
        m = _WORD_UNIT.match(folded, w.end)
        if m is None or (any(ch.isdigit() for ch in folded[w.start:w.end]) and " " not in folded[w.start:w.end]):
            continue
        amount, end = w.value, m.end("u")
        unit = m.group("u").lower()
        if m.group("cents"):
            cents = by_start.get(m.start("cents"))
            if cents is not None and cents.end == m.end("cents") and 0 <= cents.value < 100:
                amount, end = amount + cents.value / 100, m.end()
        elif m.group("bare") and CURRENCIES.get(unit, CURRENCIES.get(unit.rstrip("s"))) in _HUNDREDTHS_NAMED_BY_UNIT:
            cents = by_start.get(m.start("bare"))
            if cents is not None and cents.end == m.end("bare") and 0 < cents.value < 100 \
                    and cents.value == int(cents.value):
                amount, end = amount + cents.value / 100, m.end("bare")
        if unit.startswith("cent"):
            if m.group("cents"):
                continue  # "five cents and ten cents" is no amount
            amount, unit = amount / 100, "dollars"
        code = CURRENCIES.get(unit) or CURRENCIES.get(unit.rstrip("s"), "USD")
        if not m.group("cents"):
            amount, end = _with_minor(folded, end, amount, code)  # five pounds fifty pence
        taken = end
        yield Entity("money", text[w.start:end], w.start, end, {"amount": format_decimal(amount), "currency": code})
    for a in _ARTICLE_UNIT.finditer(folded):
        yield Entity("money", text[a.start():a.end()], a.start(), a.end(),  # a dollar: the article is the count
                     {"amount": "1", "currency": CURRENCIES[a.group("u").lower()]})
    if "cent" in folded.lower() or "¢" in folded:
        for c in _DIGIT_CENTS.finditer(folded):
            yield Entity("money", text[c.start():c.end()], c.start(), c.end(),
                         {"amount": format_decimal(Decimal(c.group("n")) / 100), "currency": "USD"})
    for c in _DIGIT_MINOR.finditer(folded):
        code, share = MINOR_ALONE[c.group("u").lower()]  # 50 kopecks, 300 satoshis
        yield Entity("money", text[c.start():c.end()], c.start(), c.end(),
                     {"amount": format_decimal(Decimal(c.group("n").replace(",", "")) * share), "currency": code})
    for c in _PENCE_P.finditer(folded):
        yield Entity("money", text[c.start():c.end()], c.start(), c.end(), {"amount": c.group("n"), "currency": "GBX"})
