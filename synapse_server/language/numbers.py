"""Numbers as atomic tokens: the unit of numeric coverage.

A figure in a claim is only licensed when the *same* figure occurs in the
licensing clause, so the tokenizer decides what "the same" means:

- value, sign and unit must all agree; there is no unit conversion (``2.5%`` is
  not ``250 bps``, ``1.5h`` is not ``90 min``);
- thousands separators are formatting (``1,200`` == ``1200``) only in strict
  three-digit groups; ``1,2`` and ``12,00`` are two numbers, never 12 or 1200.
  A comma is never a decimal separator;
- magnitudes scale the value (``$4.2M`` == ``$4.2 million`` == ``$4,200,000``);
- a sign is typographic (``-``, ``+``, U+2212, an en dash directly before a
  digit, ``±``) or the word ``minus``/``negative``; a hyphen between two
  digits is a range (``5-10``), and digits glued to letters (``3f7c2e1``,
  ``e17103e8``) are identifiers, not numbers.

The same scanner serves spelled magnitudes (``four hundred basis points``) so
the synthesize verifier can reuse it; see :func:`spelled_numbers`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

__all__ = ["NUMERAL", "NumKind", "NumToken", "Sign", "all_numbers", "numeric_tokens", "spelled_numbers"]

NumKind = Literal[
    "plain", "percent", "points", "bps", "multiplier", "ratio", "clock", "duration",
    "date", "version", "currency", "measure", "ordinal",
]  # fmt: skip
Sign = Literal["+", "-", "±"]

NUMERAL = r"(?:\d{1,3}(?:,\d{3}){1,8}(?:\.\d+)?(?!\d|,\d)|\d+(?:\.\d+)?)"
"""A written number: strict three-digit groups (at most eight, up to 10^27) or plain digits, optional decimals.

The group count is bounded so a long run such as ``123,123,…,1234`` costs constant work per position:
an unbounded repetition re-read the whole run from every start and made scanning quadratic.
"""

_TEXT_KEYED: frozenset[str] = frozenset({"date", "version", "ratio"})


@dataclass(frozen=True, slots=True)
class NumToken:
    """One figure as written, with what it means.

    ``value`` is the unsigned magnitude in base units (``$4.2M`` -> 4200000);
    ``numeral`` is the number as written before any magnitude (4.2, with its
    trailing zeros, which is the stated precision). Dates, versions and ratios
    compare by ``canon`` text instead of value.
    """

    value: Decimal
    unit: str | None
    sign: Sign
    raw: str
    start: int
    end: int
    kind: NumKind
    numeral: Decimal
    canon: str = ""

    @property
    def signed(self) -> Decimal:
        """The value with its sign applied (``±`` counts as positive)."""
        return -self.value if self.sign == "-" else self.value

    @property
    def places(self) -> int:
        """Decimal places as written: the precision the figure claims."""
        exponent = self.numeral.as_tuple().exponent
        return max(0, -exponent) if isinstance(exponent, int) else 0

    @property
    def key(self) -> tuple[str, str | None, str, Decimal | str]:
        """What two tokens must share to be the same figure."""
        return (self.kind, self.unit, self.sign, self.canon if self.kind in _TEXT_KEYED else self.value)


_SIGN = r"(?:(?P<sign>[-+\u2212\u2013\u00b1])|(?P<signword>(?i:minus|negative))[^\S\r\n]+)?"
_CANDIDATE = re.compile(
    r"(?<![\w.])" + _SIGN + r"(?P<cur>US\$|[$€£¥])?(?(cur)[^\S\r\n]?)(?P<sign2>[-\u2212])?"
    r"(?:(?P<date>\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
    r"(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?)"
    r"|(?P<version>\d+(?:\.\d+){2,})"
    r"|(?P<clock>(?P<hh>\d{1,2}):(?P<mm>[0-5]\d)(?::(?P<ss>[0-5]\d))?)"
    r"|(?P<ratio>\d+(?:\.\d+)?:\d+(?:\.\d+)?)"
    r"|(?P<num>" + NUMERAL + r"))(?!\d)"
)
_SPACE = r"[^\S\r\n]"
_AMPM = re.compile(_SPACE + r"?(?i:(?P<ap>[ap])\.?m\.?)(?![\w])")
_ZONE = re.compile(_SPACE + r"?(?:UTC|GMT|Z)(?![\w])")
_ORDINAL = re.compile(r"(?i:st|nd|rd|th)(?![\w])")
_MAG_GLUED = re.compile(r"(?P<m>k|K|M|bn|mn|B|T|tn|m)(?![\w])")
_MAG_WORD = re.compile(_SPACE + r"+(?P<m>(?i:thousand|million|billion|trillion|bn|mn))(?![\w])")
_OPAQUE = re.compile(r"[A-Za-z]+(?![\w])")

_SCALE: dict[str, int] = {
    "k": 10**3, "thousand": 10**3, "m": 10**6, "mn": 10**6, "million": 10**6,
    "b": 10**9, "bn": 10**9, "billion": 10**9, "t": 10**12, "tn": 10**12, "trillion": 10**12,
}  # fmt: skip
_CURRENCY_ONLY_MAGNITUDE = frozenset({"m", "B", "T", "tn"})
_CURRENCY_SYMBOL = {"$": "USD", "US$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY"}

# Units: spelling (lower case) -> (canonical unit, kind). Single letters only count when glued to the digits.
_UNITS: dict[str, tuple[str, NumKind]] = {
    "%": ("%", "percent"), "percent": ("%", "percent"), "per cent": ("%", "percent"), "pct": ("%", "percent"),
    "bps": ("bps", "bps"), "bp": ("bps", "bps"), "basis points": ("bps", "bps"), "basis point": ("bps", "bps"),
    "pp": ("pp", "points"), "pps": ("pp", "points"), "ppt": ("pp", "points"), "ppts": ("pp", "points"),
    "percentage points": ("pp", "points"), "percentage point": ("pp", "points"),
    "x": ("x", "multiplier"), "×": ("x", "multiplier"),
    "ns": ("ns", "duration"), "µs": ("µs", "duration"), "us": ("µs", "duration"), "ms": ("ms", "duration"),
    "s": ("s", "duration"), "sec": ("s", "duration"), "secs": ("s", "duration"), "second": ("s", "duration"),
    "seconds": ("s", "duration"), "min": ("min", "duration"), "mins": ("min", "duration"),
    "minute": ("min", "duration"), "minutes": ("min", "duration"), "h": ("h", "duration"), "hr": ("h", "duration"),
    "hrs": ("h", "duration"), "hour": ("h", "duration"), "hours": ("h", "duration"), "d": ("d", "duration"),
    "day": ("d", "duration"), "days": ("d", "duration"), "wk": ("wk", "duration"), "wks": ("wk", "duration"),
    "week": ("wk", "duration"), "weeks": ("wk", "duration"), "month": ("mo", "duration"),
    "months": ("mo", "duration"), "y": ("yr", "duration"), "yr": ("yr", "duration"), "yrs": ("yr", "duration"),
    "year": ("yr", "duration"), "years": ("yr", "duration"),
    "bytes": ("B", "measure"), "kb": ("KB", "measure"), "mb": ("MB", "measure"), "gb": ("GB", "measure"),
    "tb": ("TB", "measure"), "pb": ("PB", "measure"), "kib": ("KiB", "measure"), "mib": ("MiB", "measure"),
    "gib": ("GiB", "measure"), "tib": ("TiB", "measure"),
    "usd": ("USD", "currency"), "dollars": ("USD", "currency"), "dollar": ("USD", "currency"),
    "eur": ("EUR", "currency"), "euros": ("EUR", "currency"), "euro": ("EUR", "currency"),
    "gbp": ("GBP", "currency"), "pounds": ("GBP", "currency"), "jpy": ("JPY", "currency"),
    "yen": ("JPY", "currency"), "chf": ("CHF", "currency"),
}  # fmt: skip
_GLUED_ONLY = frozenset({"x", "×", "s", "h", "d", "y", "us"})


def _unit_pattern(names: list[str], space: str) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(name).replace(r"\ ", r"\s+") for name in sorted(names, key=len, reverse=True))
    return re.compile(space + r"(?P<u>(?i:" + alternatives + r"))(?![\w])")


_UNIT_SPACED = _unit_pattern([name for name in _UNITS if name not in _GLUED_ONLY], _SPACE + "?")
_UNIT_GLUED = _unit_pattern(sorted(_GLUED_ONLY), "")


def numeric_tokens(text: str) -> tuple[NumToken, ...]:
    """Every figure written with digits in ``text``, in order of appearance."""
    tokens: list[NumToken] = []
    position = 0
    while (match := _CANDIDATE.search(text, position)) is not None:
        token = _token(text, match)
        if token is not None and token.end < len(text) and (text[token.end].isalnum() or text[token.end] == "_"):
            token = None
        position = match.end() if token is None else token.end
        if token is not None:
            tokens.append(token)
    return tuple(tokens)


def all_numbers(text: str) -> tuple[NumToken, ...]:
    """Digit figures plus spelled cardinals (bare ones too, except a lone "one"): what coverage counts."""
    digits = numeric_tokens(text)
    spelled = [
        token
        for token in spelled_numbers(text, bare_cardinals=True)
        if not any(token.start < other.end and other.start < token.end for other in digits)
    ]
    return tuple(sorted((*digits, *spelled), key=lambda token: token.start))


def _sign_of(match: re.Match[str]) -> Sign:
    mark = match.group("sign") or match.group("sign2")
    if match.group("signword") or (mark is not None and mark in "-\u2212\u2013"):
        return "-"
    return "±" if mark == "\u00b1" else "+"


def _token(text: str, match: re.Match[str]) -> NumToken | None:
    """Build the token for a candidate, reading its suffix; None for an identifier such as ``3f7c2e1``."""
    sign = _sign_of(match)
    start, end = match.start(), match.end()
    if (date := match.group("date")) is not None:
        digits = re.sub(r"\D", "", date[:10])
        return NumToken(Decimal(digits), "date", sign, text[start:end], start, end, "date", Decimal(digits), date)
    if (version := match.group("version")) is not None:
        major = Decimal(".".join(version.split(".")[:2]))
        return NumToken(major, None, sign, text[start:end], start, end, "version", major, version)
    if match.group("clock") is not None:
        clock = _clock(text, match, sign)
        if clock is not None:
            return clock
        return _ratio(text, start, end, sign, match.group("clock"))
    if (ratio := match.group("ratio")) is not None:
        return _ratio(text, start, end, sign, ratio)
    return _number(text, match, sign)


def _clock(text: str, match: re.Match[str], sign: Sign) -> NumToken | None:
    """``09:30``, ``14:05:10``, ``9:30 am`` and ``9:30 UTC`` are clock times; a bare ``1:30`` is a ratio."""
    hours, minutes = int(match.group("hh")), int(match.group("mm"))
    end = match.end()
    ampm = _AMPM.match(text, end)
    zone = _ZONE.match(text, end)
    if ampm is not None and 1 <= hours <= 12:
        hours = hours % 12 + (12 if ampm.group("ap").lower() == "p" else 0)
        end = ampm.end()
    elif zone is not None:
        end = zone.end()
    elif not (len(match.group("hh")) == 2 or match.group("ss")) or hours > 23:
        return None
    if hours > 23:
        return None
    seconds = Decimal(hours * 3600 + minutes * 60 + int(match.group("ss") or 0))
    return NumToken(seconds, "clock", sign, text[match.start() : end], match.start(), end, "clock", seconds)


def _ratio(text: str, start: int, end: int, sign: Sign, ratio: str) -> NumToken:
    left, right = (Decimal(part) for part in ratio.split(":"))
    value = left / right if right else Decimal(0)
    canon = f"{_plain(left)}:{_plain(right)}"
    return NumToken(value, ":", sign, text[start:end], start, end, "ratio", left, canon)


def _plain(number: Decimal) -> str:
    """A Decimal without exponent notation or trailing zeros (``2.50`` -> ``2.5``, ``100`` -> ``100``)."""
    return format(number.normalize(), "f")


def _number(text: str, match: re.Match[str], sign: Sign) -> NumToken | None:
    numeral = Decimal(match.group("num").replace(",", ""))
    currency = _CURRENCY_SYMBOL.get(match.group("cur") or "")
    end = match.end()
    scale = 1
    if (glued := _MAG_GLUED.match(text, end)) is not None and (
        currency is not None or glued.group("m") not in _CURRENCY_ONLY_MAGNITUDE
    ):
        scale, end = _SCALE[glued.group("m").lower()], glued.end()
    elif (word := _MAG_WORD.match(text, end)) is not None:
        scale, end = _SCALE[word.group("m").lower()], word.end()
    unit: str | None = currency
    kind: NumKind = "currency" if currency else "plain"
    if (ampm := _AMPM.match(text, end)) is not None and scale == 1 and not currency and 1 <= numeral <= 12:
        hours = int(numeral) % 12 + (12 if ampm.group("ap").lower() == "p" else 0)
        seconds = Decimal(hours * 3600)
        return NumToken(
            seconds, "clock", sign, text[match.start() : ampm.end()], match.start(), ampm.end(), "clock", seconds
        )
    suffix = _UNIT_GLUED.match(text, end) or _UNIT_SPACED.match(text, end)
    if suffix is not None:
        named, named_kind = _UNITS[re.sub(r"\s+", " ", suffix.group("u").lower())]
        if currency is None:  # a currency symbol before the digits wins over any unit after them
            unit, kind = named, named_kind
        end = suffix.end()
    elif scale == 1 and not currency and (ordinal := _ORDINAL.match(text, end)) is not None:
        kind, end = "ordinal", ordinal.end()
    elif (opaque := _OPAQUE.match(text, end)) is not None:
        unit, kind, end = opaque.group(), "measure", opaque.end()
    value = numeral * scale
    return NumToken(value, unit, sign, text[match.start() : end], match.start(), end, kind, numeral)


# --- spelled magnitudes --------------------------------------------------------------------------------------------

_SMALL_WORDS = (
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen"
)
_TENS_WORDS = "twenty thirty forty fifty sixty seventy eighty ninety"
_SMALL: dict[str, int] = {word: value for value, word in enumerate(_SMALL_WORDS.split(" "))}
_TENS: dict[str, int] = {word: 10 * (value + 2) for value, word in enumerate(_TENS_WORDS.split(" "))}
_SCALE_WORDS: dict[str, int] = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_NUMBER_WORDS = frozenset({*_SMALL, *_TENS, *_SCALE_WORDS, "hundred", "and"})
_WORD = re.compile(r"[A-Za-z]+")
_JOIN = re.compile(r"[^\S\r\n]*-?[^\S\r\n]*")
_SPELLED_UNIT_NAMES = (
    "percent|per cent|%|basis points|basis point|bps|bp|percentage points|percentage point|pp|dollars|euros|pounds|yen"
)
_SPELLED_UNIT = _unit_pattern(_SPELLED_UNIT_NAMES.split("|"), _SPACE + "*")
_SPELLED_SIGN = re.compile(r"(?i:minus|negative)" + _SPACE + r"+$")


def spelled_numbers(text: str, *, bare_cardinals: bool = False) -> tuple[NumToken, ...]:
    """Spelled cardinals that state a figure: ``four hundred basis points`` -> 400 bps, ``twenty percent`` -> 20 %.

    By default a cardinal counts only with a magnitude word (hundred, thousand,
    million, ...) or a statistic unit after it, so prose such as "one of our
    decisions" is not a figure (the synthesize verifier's rule). With
    ``bare_cardinals`` every cardinal phrase counts except a lone "one", which
    is too often a pronoun; numeric coverage uses that stricter reading.
    Not recognised: multipliers ("double", "tenfold"), fractions ("a quarter",
    "half"), ordinals ("the first") and "a hundred".
    """
    words = [(match.group().lower(), match.start(), match.end()) for match in _WORD.finditer(text)]
    tokens: list[NumToken] = []
    index = 0
    while index < len(words):
        phrase = _cardinal(text, words, index)
        if phrase is None:
            index += 1
            continue
        value, stop, magnitude = phrase
        start, end = words[index][1], words[stop - 1][2]
        unit_match = _SPELLED_UNIT.match(text, end)
        lone_one = stop == index + 1 and words[index][0] == "one"
        if unit_match is not None or magnitude or (bare_cardinals and not lone_one):
            tokens.append(_spelled_token(text, value, start, end, unit_match))
        index = stop
    return tuple(tokens)


def _spelled_token(text: str, value: int, start: int, end: int, unit_match: re.Match[str] | None) -> NumToken:
    unit: str | None = None
    kind: NumKind = "plain"
    if unit_match is not None:
        unit, kind = _UNITS[re.sub(r"\s+", " ", unit_match.group("u").lower())]
        end = unit_match.end()
    sign: Sign = "+"
    if (signword := _SPELLED_SIGN.search(text, 0, start)) is not None:
        sign, start = "-", signword.start()
    amount = Decimal(value)
    return NumToken(amount, unit, sign, text[start:end], start, end, kind, amount)


def _joined(text: str, words: list[tuple[str, int, int]], index: int) -> bool:
    """True when word ``index`` follows the previous one across only spaces and at most one hyphen."""
    return index > 0 and _JOIN.fullmatch(text, words[index - 1][2], words[index][1]) is not None


def _cardinal(text: str, words: list[tuple[str, int, int]], index: int) -> tuple[int, int, bool] | None:
    """Parse the cardinal phrase starting at ``index``: (value, index after it, has a magnitude word)."""
    total, position, magnitude, last_scale = 0, index, False, 10**15
    while True:
        group = _hundreds(text, words, position)
        if group is None:
            break
        value, after, hundred = group
        magnitude |= hundred
        if after < len(words) and words[after][0] in _SCALE_WORDS and _joined(text, words, after):
            scale = _SCALE_WORDS[words[after][0]]
            if scale < last_scale and value > 0:
                total, position, magnitude, last_scale = total + value * scale, after + 1, True, scale
                if _and_continues(text, words, position):
                    position += 1
                if position < len(words) and _joined(text, words, position) and _hundreds(text, words, position):
                    continue
                break
        total, position = total + value, after
        break
    return None if position == index else (total, position, magnitude)


def _and_continues(text: str, words: list[tuple[str, int, int]], position: int) -> bool:
    """An "and" inside a cardinal ("one hundred and five") joins only when a smaller number follows it."""
    return (
        position + 1 < len(words)
        and words[position][0] == "and"
        and _joined(text, words, position)
        and _joined(text, words, position + 1)
        and (words[position + 1][0] in _SMALL or words[position + 1][0] in _TENS)
    )


def _hundreds(text: str, words: list[tuple[str, int, int]], index: int) -> tuple[int, int, bool] | None:
    """Parse 0..999 at ``index``: (value, index after it, used "hundred")."""
    below = _below_hundred(text, words, index)
    if below is None:
        return None
    value, after = below
    if after < len(words) and words[after][0] == "hundred" and _joined(text, words, after) and value > 0:
        value, after = value * 100, after + 1
        if _and_continues(text, words, after):
            after += 1
        if after < len(words) and _joined(text, words, after) and (rest := _below_hundred(text, words, after)):
            value, after = value + rest[0], rest[1]
        return value, after, True
    return value, after, False


def _below_hundred(text: str, words: list[tuple[str, int, int]], index: int) -> tuple[int, int] | None:
    if index >= len(words):
        return None
    word = words[index][0]
    if word in _SMALL:
        return _SMALL[word], index + 1
    if word in _TENS:
        following = index + 1
        if following < len(words) and _joined(text, words, following) and 1 <= _SMALL.get(words[following][0], 0) <= 9:
            return _TENS[word] + _SMALL[words[following][0]], following + 1
        return _TENS[word], index + 1
    return None
