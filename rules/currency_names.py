"""Currency names qualified by their country, and the minor units that count a currency's hundredths.

Many countries share a unit's name (dollar, peso, dinar, rupee, shilling, franc …): alone, ``money``
reads the most traded one or none at all; with its country before it the unit names one ISO 4217 code
(``20 Jamaican dollars`` is JMD, ``10 Kuwaiti dinars`` KWD). Minor units count parts of a major one:
``5 pounds 50 pence`` is 5.50 GBP, ``twenty rubles fifty kopecks`` 20.50 RUB, and a minor unit
standing alone is converted to its major unit where it names one currency (``50 kopecks`` is 0.50
RUB, as ``50 cents`` is 0.50 USD). These are vocabulary, kept apart from the grammar that reads
amounts (``money``).
"""

from __future__ import annotations

from decimal import Decimal

__all__ = ["COUNTRY_CURRENCIES", "MINOR_ALONE", "MINOR_UNITS"]

#: (countries' adjectives, the unit's singular and plural names, ISO 4217 code).
_QUALIFIED: tuple[tuple[tuple[str, ...], tuple[str, ...], str], ...] = (
    (("american", "united states", "u.s.", "us"), ("dollar", "dollars"), "USD"),
    (("jamaican", "jamaica"), ("dollar", "dollars"), "JMD"),
    (("bahamian",), ("dollar", "dollars"), "BSD"),
    (("barbadian", "barbados"), ("dollar", "dollars"), "BBD"),
    (("belize",), ("dollar", "dollars"), "BZD"),
    (("bermudian", "bermuda"), ("dollar", "dollars"), "BMD"),
    (("brunei",), ("dollar", "dollars"), "BND"),
    (("fijian", "fiji"), ("dollar", "dollars"), "FJD"),
    (("guyanese",), ("dollar", "dollars"), "GYD"),
    (("liberian",), ("dollar", "dollars"), "LRD"),
    (("namibian",), ("dollar", "dollars"), "NAD"),
    (("trinidad and tobago", "trinidadian", "trinidad"), ("dollar", "dollars"), "TTD"),
    (("east caribbean",), ("dollar", "dollars"), "XCD"),
    (("cayman islands", "cayman"), ("dollar", "dollars"), "KYD"),
    (("solomon islands",), ("dollar", "dollars"), "SBD"),
    (("surinamese",), ("dollar", "dollars"), "SRD"),
    (("new zealand", "nz", "kiwi"), ("dollar", "dollars"), "NZD"),
    (("new taiwan", "taiwanese"), ("dollar", "dollars"), "TWD"),
    (("chilean", "chile"), ("peso", "pesos"), "CLP"),
    (("argentine", "argentinian", "argentina"), ("peso", "pesos"), "ARS"),
    (("colombian", "colombia"), ("peso", "pesos"), "COP"),
    (("cuban",), ("peso", "pesos"), "CUP"),
    (("dominican",), ("peso", "pesos"), "DOP"),
    (("uruguayan",), ("peso", "pesos"), "UYU"),
    (("philippine", "filipino"), ("peso", "pesos", "piso"), "PHP"),
    (("kuwaiti",), ("dinar", "dinars"), "KWD"),
    (("bahraini",), ("dinar", "dinars"), "BHD"),
    (("iraqi",), ("dinar", "dinars"), "IQD"),
    (("jordanian",), ("dinar", "dinars"), "JOD"),
    (("libyan",), ("dinar", "dinars"), "LYD"),
    (("serbian",), ("dinar", "dinars"), "RSD"),
    (("tunisian",), ("dinar", "dinars"), "TND"),
    (("algerian",), ("dinar", "dinars"), "DZD"),
    (("nepalese", "nepali"), ("rupee", "rupees"), "NPR"),
    (("sri lankan",), ("rupee", "rupees"), "LKR"),
    (("mauritian",), ("rupee", "rupees"), "MUR"),
    (("seychellois",), ("rupee", "rupees"), "SCR"),
    (("qatari",), ("riyal", "riyals", "rial", "rials"), "QAR"),
    (("omani",), ("rial", "rials", "riyal", "riyals"), "OMR"),
    (("iranian",), ("rial", "rials"), "IRR"),
    (("yemeni",), ("rial", "rials"), "YER"),
    (("moroccan",), ("dirham", "dirhams"), "MAD"),
    (("emirati", "united arab emirates"), ("dirham", "dirhams"), "AED"),
    (("kenyan",), ("shilling", "shillings"), "KES"),
    (("tanzanian",), ("shilling", "shillings"), "TZS"),
    (("ugandan",), ("shilling", "shillings"), "UGX"),
    (("somali",), ("shilling", "shillings"), "SOS"),
    (("lebanese",), ("pound", "pounds"), "LBP"),
    (("syrian",), ("pound", "pounds"), "SYP"),
    (("sudanese",), ("pound", "pounds"), "SDG"),
    (("congolese",), ("franc", "francs"), "CDF"),
    (("rwandan",), ("franc", "francs"), "RWF"),
    (("guinean",), ("franc", "francs"), "GNF"),
    (("burundian",), ("franc", "francs"), "BIF"),
    (("djiboutian",), ("franc", "francs"), "DJF"),
    (("icelandic",), ("krona", "kronur", "kronas", "króna", "krónur"), "ISK"),
    (("bulgarian",), ("lev", "leva", "levs"), "BGN"),
    (("croatian",), ("kuna", "kunas"), "HRK"),
    (("romanian",), ("leu", "lei"), "RON"),
    (("moldovan",), ("leu", "lei"), "MDL"),
    (("peruvian",), ("sol", "soles"), "PEN"),
    (("bangladeshi",), ("taka", "takas"), "BDT"),
    (("ghanaian",), ("cedi", "cedis"), "GHS"),
    (("ethiopian",), ("birr", "birrs"), "ETB"),
    (("south korean",), ("won",), "KRW"),
    (("north korean",), ("won",), "KPW"),
    (("kazakh", "kazakhstani"), ("tenge", "tenges"), "KZT"),
    (("ukrainian",), ("hryvnia", "hryvnias", "hryvnas"), "UAH"),
    (("georgian",), ("lari", "laris"), "GEL"),
    (("armenian",), ("dram", "drams"), "AMD"),
    (("azerbaijani",), ("manat", "manats"), "AZN"),
    (("uzbek",), ("som", "soms"), "UZS"),
    (("mongolian",), ("tugrik", "tugriks", "togrog", "togrogs"), "MNT"),
    (("cambodian",), ("riel", "riels"), "KHR"),
    (("lao", "laotian"), ("kip", "kips"), "LAK"),
    (("burmese", "myanmar"), ("kyat", "kyats"), "MMK"),
    (("guatemalan",), ("quetzal", "quetzals", "quetzales"), "GTQ"),
    (("costa rican",), ("colon", "colons", "colones", "colón"), "CRC"),
    (("honduran",), ("lempira", "lempiras"), "HNL"),
    (("nicaraguan",), ("cordoba", "cordobas", "córdoba"), "NIO"),
    (("paraguayan",), ("guarani", "guaranis", "guaraní"), "PYG"),
    (("bolivian",), ("boliviano", "bolivianos"), "BOB"),
    (("venezuelan",), ("bolivar", "bolivars", "bolivares", "bolívar"), "VES"),
    (("haitian",), ("gourde", "gourdes"), "HTG"),
    (("zambian",), ("kwacha", "kwachas"), "ZMW"),
    (("malawian",), ("kwacha", "kwachas"), "MWK"),
    (("angolan",), ("kwanza", "kwanzas"), "AOA"),
    (("mozambican",), ("metical", "meticals", "meticais"), "MZN"),
    (("botswana",), ("pula", "pulas"), "BWP"),
    (("chinese",), ("renminbi", "kuai"), "CNY"),
    (("japanese",), ("yen",), "JPY"),
)
#: ``jamaican dollars`` → JMD: every adjective with every name of its unit (lower case).
COUNTRY_CURRENCIES: dict[str, str] = {f"{adj} {unit}": code for adjs, units, code in _QUALIFIED
                                      for adj in adjs for unit in units}

_HUNDREDTH = Decimal("0.01")
#: Minor unit name → (the currencies it divides, the share of the major unit one of it is). ``pence`` and
#: ``p`` follow pounds, ``cents`` any dollar or euro, ``kopecks`` rubles and hryvnias.
MINOR_UNITS: dict[str, tuple[frozenset[str], Decimal]] = {}
for _names, _codes, _share in (
        (("cent", "cents"), ("USD", "EUR", "CAD", "AUD", "NZD", "HKD", "SGD", "TWD", "JMD", "BSD", "BBD", "BZD",
                             "BMD", "BND", "FJD", "GYD", "LRD", "NAD", "TTD", "XCD", "KYD", "SBD", "SRD", "ZAR",
                             "KES", "TZS", "UGX", "SOS", "LKR", "MUR", "SCR", "NPR"), _HUNDREDTH),
        (("penny", "pennies", "pence", "p"), ("GBP", "EGP", "LBP", "SYP", "SDG"), _HUNDREDTH),
        (("kopeck", "kopecks", "kopek", "kopeks", "kopiyka", "kopiykas", "kopiyok"), ("RUB", "UAH"), _HUNDREDTH),
        (("centavo", "centavos"), ("MXN", "PHP", "CLP", "ARS", "COP", "CUP", "DOP", "UYU", "BRL", "BOB", "GTQ",
                                   "HNL", "NIO", "MZN", "AOA"), _HUNDREDTH),
        (("centime", "centimes"), ("CHF", "CDF", "RWF", "GNF", "BIF", "DJF", "MAD", "HTG", "DZD"), _HUNDREDTH),
        (("rappen",), ("CHF",), _HUNDREDTH),
        (("paisa", "paise"), ("INR", "PKR", "NPR", "BDT"), _HUNDREDTH),
        (("fils",), ("KWD", "BHD", "JOD", "IQD"), Decimal("0.001")),
        (("halala", "halalas", "halalah", "halalahs"), ("SAR",), _HUNDREDTH),
        (("agora", "agorot", "agorat"), ("ILS",), _HUNDREDTH),
        (("grosz", "groszy", "grosze"), ("PLN",), _HUNDREDTH),
        (("haler", "haleru", "halers"), ("CZK",), _HUNDREDTH),
        (("ore", "öre", "øre"), ("SEK", "NOK", "DKK"), _HUNDREDTH),
        (("satang", "satangs"), ("THB",), _HUNDREDTH),
        (("kurus", "kuruş"), ("TRY",), _HUNDREDTH),
        (("jiao", "mao"), ("CNY",), Decimal("0.1")),
        (("fen",), ("CNY",), _HUNDREDTH),
        (("satoshi", "satoshis"), ("BTC",), Decimal("1e-8")),
):
    for _name in _names:
        MINOR_UNITS[_name] = (frozenset(_codes), _share)

#: Minor units read alone, with the one currency each names: ``50 kopecks`` (0.50 RUB), ``300 satoshis``,
#: ``20 euro cents``. Pence keep their own exchange code (GBX: ``ten pence`` is 10 GBX), and ``cents``
#: alone are a dollar's (``money`` reads them already); names many currencies share (``centimes``,
#: ``centavos``) are left alone.
MINOR_ALONE: dict[str, tuple[str, Decimal]] = {
    **{name: ("RUB", _HUNDREDTH) for name in ("kopeck", "kopecks", "kopek", "kopeks")},
    **{name: ("UAH", _HUNDREDTH) for name in ("kopiyka", "kopiykas", "kopiyok")},
    **{name: ("BTC", Decimal("1e-8")) for name in ("satoshi", "satoshis")},
    **{name: ("BTC", Decimal("0.001")) for name in ("millibitcoin", "millibitcoins")},
    **{name: ("EUR", _HUNDREDTH) for name in ("euro cent", "euro cents")},
    **{name: ("INR", _HUNDREDTH) for name in ("paisa", "paise")},
    **{name: ("ILS", _HUNDREDTH) for name in ("agora", "agorot")},
    **{name: ("PLN", _HUNDREDTH) for name in ("grosz", "groszy")},
    **{name: ("SAR", _HUNDREDTH) for name in ("halala", "halalas")},
}
