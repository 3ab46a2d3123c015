"""Dates as Weka reads them from ARFF: Java's ``SimpleDateFormat.parse``, not lenient, in UTC.

Weka 3.6 (``weka.core.Attribute``, date attributes) keeps a date as the milliseconds since
1970-01-01T00:00:00 UTC that ``new SimpleDateFormat(pattern)`` with ``setLenient(false)`` reads
from the text, in the JVM's default time zone and locale. treegen assumes the zone is UTC (run
Weka with ``-Duser.timezone=UTC`` to get the same numbers; elsewhere Weka's numbers are shifted by
the zone's offset) and the locale English (month names, AM/PM).

What is reproduced, after OpenJDK 17's ``java.text.SimpleDateFormat`` (``compile``, ``parse``,
``subParse``, ``shouldObeyCount``) and ``java.util.GregorianCalendar`` (validation when not lenient,
the Julian calendar before 1582-10-15):

* pattern letters ``y M d H k K h m s S a Z X`` and literal text (``'...'`` quotes, ``''``);
  other letters are refused with a clear error rather than read differently;
* numeric fields take as many digits as follow (Unicode decimal digits too, a leading ``-``),
  except that a field followed directly by another numeric field takes exactly its letter count
  (``yyyyMMdd``); spaces and tabs before a field are skipped, literals must match exactly;
* ``y``/``yy`` with exactly two digits falls in the century that starts 80 years before now;
* every field must be in range and the day must exist (non-lenient);
* text after the end of the pattern is ignored, as ``DateFormat.parse(String)`` ignores it.
"""
from __future__ import annotations

import datetime as _dt
import unicodedata
from dataclasses import dataclass

DEFAULT_FORMAT = "yyyy-MM-dd'T'HH:mm:ss"  # Weka's, for '@attribute d date' without a format
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december")
SHORT_MONTHS = tuple(m[:3] for m in MONTHS)  # English (CLDR): Jan ... Sep ... Dec
NUMERIC_LETTERS = set("ydHkKhmsS")  # fields read as numbers (M too, when count <= 2)
SUPPORTED = NUMERIC_LETTERS | set("MaZX")
DAY_MS = 86_400_000
CUTOVER_DAY = -141427  # 1582-10-15 (Gregorian), days from 1970-01-01: Java's default Gregorian cutover
INT_MAX = 2**31 - 1


class DateFormatError(ValueError):
    """The pattern cannot be used (a letter Java refuses, or one treegen does not read)."""


@dataclass(frozen=True)
class Field:
    letter: str  # a pattern letter, or "" for literal text
    count: int = 0
    text: str = ""  # the literal


def compile_pattern(pattern: str) -> tuple[Field, ...]:
    """The pattern as fields and literals (``SimpleDateFormat.compile``)."""
    fields: list[Field] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "'":
            if i + 1 < n and pattern[i + 1] == "'":  # '' is one quote
                fields.append(Field("", text="'"))
                i += 2
                continue
            end = i + 1
            literal = []
            while True:
                if end >= n:
                    raise DateFormatError(f"unterminated quote in date format {pattern!r}")
                if pattern[end] == "'":
                    if end + 1 < n and pattern[end + 1] == "'":
                        literal.append("'")
                        end += 2
                        continue
                    break
                literal.append(pattern[end])
                end += 1
            fields.append(Field("", text="".join(literal)))
            i = end + 1
        elif "a" <= c <= "z" or "A" <= c <= "Z":
            count = 1
            while i + count < n and pattern[i + count] == c:
                count += 1
            if c not in SUPPORTED:
                raise DateFormatError(f"date format letter {c!r} is not supported (treegen reads "
                                      f"{' '.join(sorted(SUPPORTED))} and literal text)")
            fields.append(Field(c, count))
            i += count
        else:
            fields.append(Field("", text=c))
            i += 1
    return tuple(fields)


def _obey_count(next_field: Field | None) -> bool:
    """``shouldObeyCount``: the next field is numeric, so this one takes exactly its count."""
    if next_field is None or not next_field.letter:
        return False
    if next_field.letter == "M":
        return next_field.count <= 2
    return next_field.letter in NUMERIC_LETTERS


def _digit(ch: str) -> int | None:
    return unicodedata.decimal(ch, None)


def _parse_int(text: str, pos: int, end: int) -> tuple[int, int] | None:
    """Java's integer ``DecimalFormat.parse`` from pos, within text[:end]: (value, new pos)."""
    i, negative = pos, False
    if i < end and text[i] == "-":
        negative, i = True, i + 1
    start = i
    value = 0
    while i < end and _digit(text[i]) is not None:
        value = value * 10 + _digit(text[i])
        i += 1
    if i == start:
        return None
    value = -value if negative else value
    if abs(value) > INT_MAX:  # Java would wrap or saturate; no valid date has such a field
        return None
    return value, i


def _match_name(text: str, start: int, names: tuple[str, ...]) -> tuple[int, int] | None:
    """``matchString``: the longest name matching at start, ignoring case: (index, new pos)."""
    best = None
    for k, name in enumerate(names):
        if text[start:start + len(name)].lower() == name and (best is None or len(name) > len(names[best])):
            best = k
    return None if best is None else (best, start + len(names[best]))


def _zone(text: str, pos: int, field: Field) -> tuple[int, int] | None:
    """``Z`` (RFC 822 ``+hhmm`` or ``GMT+hh:mm``) and ``X`` (ISO ``Z``, ``+hh``, ``+hhmm``, ``+hh:mm``):
    (offset in minutes, new pos)."""
    if pos >= len(text):
        return None
    c = text[pos]
    if field.letter == "X" and c == "Z":
        return 0, pos + 1
    colon = False
    count = field.count if field.letter == "X" else 0
    if field.letter == "Z" and c not in "+-":
        if text[pos:pos + 3].lower() != "gmt":
            return None  # zone names are not read
        pos += 3
        if pos >= len(text) or text[pos] not in "+-":
            return 0, pos
        c, colon = text[pos], True
    elif c not in "+-":
        return None
    if field.letter == "X":
        colon = count == 3
    sign = 1 if c == "+" else -1
    i = pos + 1

    def digit_at(k):
        return text[k] if k < len(text) and "0" <= text[k] <= "9" else None

    if digit_at(i) is None:
        return None
    hours = int(text[i])
    i += 1
    if digit_at(i) is not None:
        hours = hours * 10 + int(text[i])
        i += 1
    elif count > 0 or not colon:
        return None
    if hours > 23:
        return None
    minutes = 0
    if count != 1:
        if colon:
            if i >= len(text) or text[i] != ":":
                return None
            i += 1
        if digit_at(i) is None or digit_at(i + 1) is None:
            return None
        minutes = int(text[i:i + 2])
        i += 2
        if minutes > 59:
            return None
    return sign * (hours * 60 + minutes), i


def parse_date(text: str, fields: tuple[Field, ...], now: _dt.datetime | None = None) -> float | None:
    """Milliseconds since the epoch (UTC) that Java reads from text, or None where Java throws."""
    pos = 0
    values: dict[str, int] = {}
    order: list[str] = []  # the order fields were set in: the later of H/k and h/K/a decides the hour
    ambiguous_year = False
    for k, field in enumerate(fields):
        if not field.letter:
            if not text.startswith(field.text, pos):
                return None
            pos += len(field.text)
            continue
        start = pos
        while pos < len(text) and text[pos] in " \t":
            pos += 1
        if pos >= len(text):
            return None
        letter, count = field.letter, field.count
        if letter in NUMERIC_LETTERS or (letter == "M" and count <= 2):
            end = start + count if _obey_count(fields[k + 1] if k + 1 < len(fields) else None) else len(text)
            if end > len(text):
                return None
            parsed = _parse_int(text, pos, end)
            if parsed is None:
                return None
            value, new_pos = parsed
            if letter == "y" and count <= 2 and new_pos - pos == 2 and text[pos].isdigit() \
                    and text[pos + 1].isdigit():
                century_start = _century_start(now)
                ambiguous = century_start.year % 100
                ambiguous_year = value == ambiguous
                value += (century_start.year // 100) * 100 + (100 if value < ambiguous else 0)
            elif letter == "k":
                if not 1 <= value <= 24:
                    return None
                value = 0 if value == 24 else value
            elif letter == "h":
                if not 1 <= value <= 12:
                    return None
                value = 0 if value == 12 else value
            elif letter == "M":
                value -= 1
            pos = new_pos
        elif letter == "M":
            matched = _match_name(text, start, MONTHS + SHORT_MONTHS)
            if matched is None:
                return None
            value, pos = matched[0] % 12, matched[1]
        elif letter == "a":
            matched = _match_name(text, start, ("am", "pm"))
            if matched is None:
                return None
            value, pos = matched
        else:  # Z, X
            zone = _zone(text, pos, field)
            if zone is None:
                return None
            value, pos = zone
        key = {"k": "H", "K": "h", "Z": "zone", "X": "zone"}.get(letter, letter)
        values[key] = value
        order.append(key)
    millis = _establish(values, order)
    if millis is not None and ambiguous_year and millis < _epoch_ms(_century_start(now)):
        values["y"] += 100
        millis = _establish(values, order)
    return millis


def _century_start(now: _dt.datetime | None) -> _dt.datetime:
    """``initializeDefaultCentury``: now, 80 years back (Feb 29 becomes Feb 28, as Calendar.add)."""
    now = now or _dt.datetime.now(_dt.timezone.utc).replace(tzinfo=None)
    try:
        return now.replace(year=now.year - 80)
    except ValueError:
        return now.replace(year=now.year - 80, day=28)


def _epoch_ms(moment: _dt.datetime) -> int:
    return (moment - _dt.datetime(1970, 1, 1)) // _dt.timedelta(milliseconds=1)


def _is_leap(year: int, julian: bool) -> bool:
    return year % 4 == 0 if julian else (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0))


def _days_from_epoch(year: int, month: int, day: int, julian: bool) -> int:
    """Days from 1970-01-01 of a date in the proleptic Gregorian or the Julian calendar (via the
    Julian day number)."""
    a = (14 - month) // 12
    y, m = year + 4800 - a, month + 12 * a - 3
    jdn = day + (153 * m + 2) // 5 + 365 * y + y // 4
    jdn += -32083 if julian else -(y // 100) + y // 400 - 32045
    return jdn - 2440588


def _establish(values: dict[str, int], order: list[str]) -> float | None:
    """``CalendarBuilder.establish`` + ``GregorianCalendar.getTime`` when not lenient: every field
    in range, the date one that exists; UTC unless the text gave a zone."""
    year = values.get("y", 1970)
    month = values.get("M", 0) + 1
    day = values.get("d", 1)
    if not 1 <= year <= 292278994 or not 1 <= month <= 12 or day < 1:
        return None
    julian = (year, month, day) < (1582, 10, 5)
    if (1582, 10, 5) <= (year, month, day) < (1582, 10, 15):
        return None  # the days the Gregorian reform skipped do not exist
    length = (31, 29 if _is_leap(year, julian) else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[month - 1]
    if day > length:
        return None
    hour_of_day, hour, am_pm = values.get("H"), values.get("h", 0), values.get("a", 0)
    use_hour_of_day = hour_of_day is not None and (
        not any(k in order for k in ("h", "a"))
        or max(i for i, k in enumerate(order) if k == "H") > max(i for i, k in enumerate(order) if k in ("h", "a")))
    if hour_of_day is not None and not 0 <= hour_of_day <= 23:
        return None
    if not 0 <= hour <= 11 or not 0 <= am_pm <= 1:
        return None
    minute, second, milli = values.get("m", 0), values.get("s", 0), values.get("S", 0)
    if not (0 <= minute <= 59 and 0 <= second <= 59 and 0 <= milli <= 999):
        return None
    hours = hour_of_day if use_hour_of_day else hour + 12 * am_pm
    days = _days_from_epoch(year, month, day, julian)
    millis = days * DAY_MS + ((hours * 60 + minute) * 60 + second) * 1000 + milli
    return float(millis - values.get("zone", 0) * 60_000)
