"""Weka's ARFF format, read as Weka 3.6 reads it (``weka.core.converters.ArffLoader.ArffReader`` over
``java.io.StreamTokenizer``), so that a file means to treegen what it means to J48.

Tokens: a value is a run of characters above U+0020 other than ``, % ' " { }``, or a quoted string.
Values are separated by any run of spaces, tabs, other control characters and commas (so ``a,,b``
is two values), rows by line ends; ``%`` starts a comment outside quotes. In quotes (``'`` or ``"``)
a backslash escapes as Java's tokenizer reads it: ``\\n \\t \\r \\b \\f \\a \\v``, octal ``\\101``
(up to ``\\377``), and any other character stands for itself (``\\' \\\\ \\%``).

Declarations: ``@relation``, then ``@attribute NAME TYPE`` with TYPE ``numeric``/``real``/``integer``,
``{v1, v2, ...}`` (nominal, in declared order) or ``date ["format"]`` (Java ``SimpleDateFormat``,
default ``yyyy-MM-dd'T'HH:mm:ss``), then ``@data``. A date is read as Weka reads it, as the number of
milliseconds since 1970-01-01 UTC (:mod:`treegen.javadate`): the column is numeric. ``string`` and
``relational`` attributes are refused (J48 refuses them too).

Rows: one value per attribute (``?`` unquoted is missing), optionally followed by an instance
weight ``{w}``; or sparse, ``{index value, ...}`` (attributes not listed are 0, a nominal one its
first value). Numbers are read as Java's ``Double.valueOf`` reads them (``1d``, ``0x1p3``, ``NaN`` is
missing). Where Weka would silently misread a row (more values than attributes) or read a quote that
is never closed, treegen reports an error instead.
"""
from __future__ import annotations

import bisect
import functools
import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import javadate
from .errors import TreegenError, did_you_mean
from .model import NOMINAL, NUMERIC, Feature
from .table import Table

NUMERIC_TYPES = {"numeric", "real", "integer"}
WORD, QUOTED, EOL, EOF, OPEN, CLOSE = "word", "quoted", "end of line", "end of file", "{", "}"
_TOKEN = re.compile(r"""
    (?P<space>[\x00-\x09\x0b\x0c\x0e-\x20,]+)
  | (?P<eol>\r\n?|\n)
  | (?P<comment>%[^\r\n]*)
  | (?P<word>[^\x00-\x20,%'"{}]+)
  | (?P<quote>'(?:[^'\\\r\n]|\\[\s\S])*'|"(?:[^"\\\r\n]|\\[\s\S])*")
  | (?P<brace>[{}])
  | (?P<open>['"])
""", re.VERBOSE)
_ESCAPE = re.compile(r"\\(?:([0-3][0-7]{0,2}|[4-7][0-7]?)|([\s\S]))")
_ESCAPES = {"a": "\x07", "b": "\b", "f": "\x0c", "n": "\n", "r": "\r", "t": "\t", "v": "\x0b"}
# Java's Double.valueOf (FloatingDecimal.readJavaFormatString), after trimming chars <= U+0020
_JAVA_DECIMAL = re.compile(r"[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?)")
_LINE_END = re.compile(r"\r\n?|\n")
_PLAIN_WORD = re.compile(r"[^\x00-\x20,]+")  # a word, on a line without any of: % ' " { }
_EMPTY_FIELD = re.compile(r"^[ \t]*,|,[ \t]*,|,[ \t\r]*$", re.MULTILINE)  # a CSV's missing value
_TO_SPACE = {code: " " for code in [*range(0x21), ord(",")]}  # separators made spaces, for str.split
_JAVA_HEX = re.compile(r"([+-]?)0[xX]((?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+)[fFdD]?")


class Doubles(Sequence):
    """A numeric column as the reader makes it: the doubles Weka reads, in ``numbers`` (NaN where
    missing). As a sequence it is the column's texts, ``repr`` of each double and None where the
    value is missing (``?``), as :class:`treegen.table.Table` holds columns; they are made only when
    asked for (:func:`treegen.data.encode` takes the numbers)."""

    def __init__(self, numbers: np.ndarray, missing: np.ndarray):
        self.numbers, self.missing = numbers, missing  # missing: '?', where numbers is NaN, not 'NaN'

    @classmethod
    def of(cls, values: list[float | None]) -> Doubles:
        """From the doubles, None where missing."""
        numbers = np.array(values, dtype=np.float64)  # None becomes NaN
        missing = np.isnan(numbers)
        for k in np.flatnonzero(missing).tolist():
            missing[k] = values[k] is None  # not the number NaN
        return cls(numbers, missing)

    def take(self, rows) -> Doubles:
        return Doubles(self.numbers[rows], self.missing[rows])

    def __len__(self) -> int:
        return len(self.numbers)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return self.take(index).texts()
        return None if self.missing[index] else repr(float(self.numbers[index]))

    def texts(self) -> list[str | None]:
        return [None if missing else repr(number) for number, missing in zip(self.numbers.tolist(),
                                                                           self.missing.tolist())]

    def __iter__(self):
        return iter(self.texts())

    def __eq__(self, other) -> bool:
        return self.texts() == list(other) if isinstance(other, (list, Doubles)) else NotImplemented

    __hash__ = None  # as a list's

    def __repr__(self) -> str:
        return repr(self.texts())


@dataclass(frozen=True)
class Token:
    kind: str  # WORD, QUOTED, EOL, EOF, OPEN or CLOSE
    text: str
    offset: int


def unescape(body: str) -> str:
    """The text of a quoted ARFF string as ``java.io.StreamTokenizer`` reads it."""
    def one(match: re.Match) -> str:
        if match.group(1) is not None:
            return chr(int(match.group(1), 8))
        return _ESCAPES.get(match.group(2), match.group(2))
    return _ESCAPE.sub(one, body)


def java_double(text: str) -> float | None:
    """``Double.valueOf(text)``, or None where Java throws NumberFormatException."""
    if text.isascii() and "_" not in text:  # Python's float reads ASCII decimals as Java does
        try:
            number = float(text)
        except ValueError:
            pass
        else:
            if math.isfinite(number):  # not 'inf' or 'nan', which Java refuses
                return number
    text = text.strip("".join(map(chr, range(0x21))))
    if _JAVA_DECIMAL.fullmatch(text):
        text = text[:-1] if text[-1] in "fFdD" else text  # a float or double suffix
        return float(text.replace("Infinity", "inf").replace("NaN", "nan"))
    hexadecimal = _JAVA_HEX.fullmatch(text)
    if hexadecimal:
        return float.fromhex(hexadecimal.group(1) + "0x" + hexadecimal.group(2))
    return None


class Reader:
    """Weka's ``ArffReader``: header, then rows, one token at a time."""

    def __init__(self, text: str, source: str):
        self.text, self.source = text, source
        self.line_starts = line_starts(text)
        self.tokens = self._scan(0)
        self.pushed: Token | None = None

    # -- tokens ----------------------------------------------------------------------------

    def _scan(self, pos: int):
        text = self.text
        while pos < len(text):
            match = _TOKEN.match(text, pos)
            kind = match.lastgroup
            if kind == "eol":
                yield Token(EOL, "", pos)
            elif kind == "word":
                yield Token(WORD, match.group(), pos)
            elif kind == "quote":
                yield Token(QUOTED, unescape(match.group()[1:-1]), pos)
            elif kind == "brace":
                yield Token(match.group(), "", pos)
            elif kind == "open":
                raise self.error("a quote that is not closed on its line", pos)
            pos = match.end()
        while True:
            yield Token(EOF, "", len(text))

    def next(self) -> Token:
        if self.pushed is not None:
            token, self.pushed = self.pushed, None
            return token
        return next(self.tokens)

    def first(self) -> Token:
        """``getFirstToken``: the next token that is not a line end."""
        token = self.next()
        while token.kind == EOL:
            token = self.next()
        return token

    def skip_line(self) -> None:
        """``readTillEOL``: the rest of a declaration is ignored."""
        token = self.next()
        while token.kind not in (EOL, EOF):
            token = self.next()

    def end_of_line(self, what: str) -> None:
        token = self.next()
        if token.kind not in (EOL, EOF):
            raise self.error(f"end of line expected after {what}, found {describe(token)}", token.offset)

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def error(self, message: str, offset: int) -> TreegenError:
        return TreegenError(message, self.source, *self.position(offset))

    def value_error(self, message: str, offset: int) -> TreegenError:
        """A bad value in a row, at its FILE:LINE:COLUMN."""
        return self.error(message + self.empty_field_hint(offset), offset)

    def empty_field_hint(self, offset: int) -> str:
        """What a row with an empty field (two commas with nothing between, as a CSV writes a missing value)
        means, when a value or the count of values went wrong on it: Weka reads no value there, and the
        values after it shift."""
        line = self.position(offset)[0]
        end = self.line_starts[line] if line < len(self.line_starts) else len(self.text)
        if _EMPTY_FIELD.search(self.text, self.line_starts[line - 1], end):
            return "; an empty field is no value in ARFF, and the values after it shift: a missing value is '?'"
        return ""

    # -- header ----------------------------------------------------------------------------

    def header(self) -> tuple[list[Feature], dict[str, str], Token]:
        """The attributes, the date formats of date attributes, and the first token after @data."""
        features: list[Feature] = []
        dates: dict[str, str] = {}
        token = self.first()
        if is_keyword(token, "@relation"):
            name = self.next()
            if name.kind not in (WORD, QUOTED):
                raise self.error("expected a name after @relation", name.offset)
            self.end_of_line("the relation's name")
            token = self.first()
        while is_keyword(token, "@attribute"):
            feature, date_format = self.attribute(token)
            if any(f.name == feature.name for f in features):  # here, where the line is known
                raise self.error(f"column name {feature.name!r} appears twice", token.offset)
            features.append(feature)
            if date_format is not None:
                dates[feature.name] = date_format
            token = self.first()
        if not is_keyword(token, "@data"):
            if token.kind == EOF:
                raise TreegenError("no @data section" if features else "no @attribute declarations", self.source)
            raise self.error(f"expected @relation, @attribute or @data, found {describe(token)}", token.offset)
        if not features:
            raise TreegenError("no @attribute declarations", self.source)
        return features, dates, self.first()

    def attribute(self, keyword: Token) -> tuple[Feature, str | None]:
        name = self.next()
        if name.kind not in (WORD, QUOTED):
            raise self.error("expected '@attribute NAME TYPE'", keyword.offset)
        kind = self.next()
        if kind.kind == OPEN:
            return Feature(name.text, NOMINAL, self.nominal_values(name)), None
        if kind.kind not in (WORD, QUOTED):
            raise self.error("expected '@attribute NAME TYPE'", keyword.offset)
        word = kind.text.lower()
        if word in NUMERIC_TYPES:
            self.skip_line()
            return Feature(name.text, NUMERIC), None
        if word == "date":
            return Feature(name.text, NUMERIC), self.date_format(kind)
        if word == "string":
            raise self.error(f"attribute {name.text!r} is a string attribute, which J48 refuses and treegen "
                             "too: declare its values as nominal, {v1, v2, ...}", kind.offset)
        raise self.error(f"unsupported attribute type {kind.text!r}", kind.offset)

    def nominal_values(self, name: Token) -> tuple[str, ...]:
        values: list[str] = []
        while True:
            token = self.next()
            if token.kind == CLOSE:
                break
            if token.kind not in (WORD, QUOTED):
                raise self.error(f"'}}' expected at the end of the values of {name.text!r}", token.offset)
            if token.text in values:
                raise self.error(f"{name.text!r} declares the value {token.text!r} twice", token.offset)
            values.append(token.text)
        self.end_of_line("'}'")
        return tuple(values)

    def date_format(self, keyword: Token) -> str:
        token = self.next()
        if token.kind in (EOL, EOF):
            pattern = javadate.DEFAULT_FORMAT
        elif token.kind in (WORD, QUOTED):
            pattern = token.text
            self.skip_line()
        else:
            raise self.error("not a valid date format", token.offset)
        try:
            javadate.compile_pattern(pattern)
        except javadate.DateFormatError as err:
            raise self.error(str(err), token.offset if token.kind in (WORD, QUOTED) else keyword.offset) from None
        return pattern

    # -- rows ------------------------------------------------------------------------------

    def rows(self, features: list[Feature], dates: dict[str, str], token: Token):
        """Blocks of rows from the first token after @data: (a list of values per attribute: the
        double of a number, the text of a nominal value or of a date's milliseconds, None for
        missing; the rows' weights; their lines)."""
        decoders = [self.value_decoder(f, dates.get(f.name)) for f in features]
        plain = None if dates else [plain_column_reader(f) for f in features]
        zeros = [("0.0" if f.name in dates else 0.0) if f.is_numeric else (f.categories[0] if f.categories else None)
                 for f in features]  # a sparse row's values where it lists none
        while True:
            while token.kind == EOL:
                token = self.next()
            if token.kind == EOF:
                return
            line = self.position(token.offset)[0]
            block = self.plain_rows(token.offset, decoders, plain) if token.kind == WORD and plain else None
            if block:
                yield block, [1.0] * len(block[0]), range(line, line + len(block[0]))
            else:
                if token.kind == OPEN:
                    values = self.sparse_row(zeros, decoders)
                else:
                    values = [self.read_value(decoders[0], token)]
                    for decode in decoders[1:]:
                        token = self.next()
                        if token.kind in (EOL, EOF):
                            raise self.error(f"expected {len(features)} values as declared, found {len(values)}"
                                             + self.empty_field_hint(token.offset), token.offset)
                        values.append(self.read_value(decode, token))
                yield [[value] for value in values], [self.weight(len(features))], [line]
            token = self.next()

    def plain_rows(self, start: int, decoders, plain) -> list[list] | None:
        """The common rows, from ``start`` on while each line holds words alone, one per attribute:
        read without the tokenizer, up to 1000 at a time, as it would read them; a list of values per
        attribute. None at any other row, which the tokenizer reads (and reports)."""
        lines = plain_lines(len(decoders)).match(self.text, start)
        if not lines:
            return None
        block = self.text[start:lines.end()]
        words = block.translate(_TO_SPACE).split() if block.isascii() else _PLAIN_WORD.findall(block)
        try:
            columns = [read(words[k::len(plain)]) for k, read in enumerate(plain)]
        except ValueError:  # a value for the decoders to judge (and report at its offset), row by row
            found = list(_PLAIN_WORD.finditer(block))
            rows = [found[k:k + len(decoders)] for k in range(0, len(found), len(decoders))]
            columns = [list(values) for values in
                       zip(*[[None if word[0] == "?" else decode(word[0], start + word.start())
                              for decode, word in zip(decoders, row)] for row in rows])]
        self.tokens = self._scan(lines.end())  # on from the next line
        return columns

    def weight(self, declared: int) -> float:
        """``getInstanceWeight``: ``{w}`` after a row, else 1."""
        token = self.next()
        if token.kind in (EOL, EOF):
            self.pushed = token
            return 1.0
        if token.kind != OPEN:
            raise self.error(f"expected {declared} values as declared, found more", token.offset)
        value = self.next()
        weight = java_double(value.text) if value.kind in (WORD, QUOTED) else None
        if weight is None or not (math.isfinite(weight) and weight >= 0):
            raise self.error("an instance weight must be a number >= 0, as in {0.5}", value.offset)
        close = self.next()
        if close.kind != CLOSE:
            raise self.error("'}' expected after the instance weight", close.offset)
        self.end_of_line("the instance weight")
        self.pushed = Token(EOL, "", close.offset)
        return weight

    def sparse_row(self, zeros: list, decoders) -> list:
        """``getInstanceSparse``: ``{index value, ...}``; unlisted attributes are 0 (a nominal one's
        first value): ``zeros``."""
        values = list(zeros)
        last = -1
        while True:
            token = self.next()
            if token.kind in (EOL, EOF):
                raise self.error("'}' expected at the end of a sparse row", token.offset)
            if token.kind == CLOSE:
                return values
            index = int(token.text) if token.kind == WORD and re.fullmatch(r"[+-]?[0-9]+", token.text) else None
            if index is None:
                raise self.error(f"expected an attribute index, found {describe(token)}", token.offset)
            if index <= last or not 0 <= index < len(values):
                raise self.error(f"attribute index {index} is out of order or out of range", token.offset)
            last = index
            value = self.next()
            if value.kind in (EOL, EOF):
                raise self.error("'}' expected at the end of a sparse row", value.offset)
            values[index] = self.read_value(decoders[index], value)

    def read_value(self, decode, token: Token) -> float | str | None:
        if token.kind == WORD and token.text == "?":
            return None
        if token.kind not in (WORD, QUOTED):
            raise self.value_error(f"not a valid value: {describe(token)}", token.offset)
        return decode(token.text, token.offset)

    def value_decoder(self, feature: Feature, date_format: str | None):
        """A function from the text of a value that is not missing, and its offset, to the column's
        value as Weka decodes it (a date: the text of its milliseconds)."""
        if date_format is not None:
            fields = javadate.compile_pattern(date_format)

            def decode_date(text: str, offset: int) -> str:
                millis = javadate.parse_date(text, fields)
                if millis is None:
                    raise self.value_error(f"{text!r} is not a date in the format {date_format!r} "
                                           f"of {feature.name!r}", offset)
                return repr(millis)
            return decode_date
        if feature.is_numeric:
            def decode_number(text: str, offset: int) -> float:
                number = java_double(text)
                if number is None:
                    raise self.value_error(f"column {feature.name!r}: {text!r} is not a number", offset)
                return number
            return decode_number
        known = feature.known

        def decode_nominal(text: str, offset: int) -> str:
            if text not in known:
                raise self.value_error(f"{text!r} is not a declared value of {feature.name!r}"
                                       + did_you_mean([text], feature.categories), offset)
            return text
        return decode_nominal


@functools.lru_cache
def plain_lines(count: int) -> re.Pattern:
    """Up to 1000 lines that hold ``count`` words alone each: no quote, brace or comment."""
    space, word = r"[\x00-\x09\x0b\x0c\x0e-\x20,]", r"""[^\x00-\x20,%'"{}]+"""
    line = rf"{space}*{word}(?:{space}+{word}){{{count - 1}}}{space}*(?:{_LINE_END.pattern}|\Z)"
    return re.compile(rf"(?:{line}){{1,1000}}")


def line_starts(text: str) -> list[int]:
    """Where each line of the text starts (after ``\\r\\n``, ``\\r`` or ``\\n``)."""
    one_character_ends = text.replace("\r\n", " \n").replace("\r", "\n")
    return [start + line for line, start in
            enumerate(itertools.accumulate(map(len, one_character_ends.split("\n")), initial=0))][:-1]


def plain_column_reader(feature: Feature):
    """A function from a column of plain words to its values as the value decoders make them, which
    raises ValueError where they must judge: a number that is not plain ASCII decimal, an unknown
    value."""
    if feature.is_numeric:
        def numbers(words: list[str]) -> list[float | None]:
            joined = "".join(words)
            if not joined.isascii() or "_" in joined:  # float() reads more than Java there
                raise ValueError
            values = [None if word == "?" else float(word) for word in words]
            if not math.isfinite(sum(filter(None, values))):  # an infinity or NaN (or a sum that overflows)
                raise ValueError
            return values
        return numbers
    known = feature.known | {"?"}

    def nominal(words: list[str]) -> list[str | None]:
        if not known.issuperset(words):
            raise ValueError
        return [None if word == "?" else word for word in words]
    return nominal


def is_keyword(token: Token, keyword: str) -> bool:
    """Weka compares keywords ignoring case, and a quoted one is a keyword too (getFirstToken)."""
    return token.kind in (WORD, QUOTED) and token.text.lower() == keyword


def describe(token: Token) -> str:
    return repr(token.text) if token.kind in (WORD, QUOTED) else token.kind


def parse_arff(text: str, source: str = "<arff>") -> Table:
    """Read ARFF text into a :class:`Table`: nominal values as declared, numbers as the texts of
    the doubles Weka reads (``repr``: :class:`Doubles`), dates as the text of their milliseconds,
    with each row's weight and the date formats."""
    reader = Reader(text, source)
    features, dates, token = reader.header()
    columns, weights, lines = [[] for _ in features], [], []
    for block, block_weights, block_lines in reader.rows(features, dates, token):
        for column, values in zip(columns, block):
            column.extend(values)
        weights.extend(block_weights)
        lines.extend(block_lines)
    columns = [Doubles.of(column) if f.is_numeric and f.name not in dates else column
               for f, column in zip(features, columns)]
    declared = {f.name: f for f in features}
    # (no header line: each name is on a line of its own, and the file's first line may be a comment)
    return Table(source, [f.name for f in features], columns, lines, declared, weights, dates, header_line=None)
