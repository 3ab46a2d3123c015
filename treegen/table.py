"""A data file's columns as text, before any learning decisions: what the CSV and ARFF readers make."""
from __future__ import annotations

import csv
import numbers
import re
import shlex
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

from .errors import TreegenError, did_you_mean
from .model import Feature

SPACE = " "  # the only character stripped: around names and missing tokens, never around values


@dataclass
class Table:
    """A file's columns as text, before any learning decisions. ``None`` marks a missing value."""

    source: str
    names: list[str]
    columns: list[list[str | None]]
    lines: list[int]  # line number of each row in the source file
    declared: dict[str, Feature]  # ARFF: each attribute's declared type; a numeric one's texts are reprs of doubles
    weights: list[float] | None = None  # ARFF: each row's instance weight ({w} after the row; 1 without)
    dates: dict[str, str] = field(default_factory=dict)  # ARFF: date attribute -> its Java date format
    header_line: int | None = 1  # CSV: the header's line (blank lines before it are skipped); ARFF: None
    # Rows that are no file's lines (a DataFrame's, a list's): each row's index label, which its user knows it
    # by, in place of the line of the CSV text it was read through.
    row_labels: Sequence | None = None

    def __len__(self) -> int:
        return len(self.lines)

    def place(self, row: int) -> tuple[str, int | None]:
        """Where a row is, as a message's file and line: the file's line; a frame's row by its index label,
        and by its position (``iloc``) too where the two differ."""
        if self.row_labels is None:
            return self.source, self.lines[row]
        label = self.row_labels[row]
        if isinstance(label, numbers.Integral) and not isinstance(label, bool) and label == row:
            return f"{self.source} row {row}", None
        shown = repr(label) if isinstance(label, str) else str(label)
        return f"{self.source} row {shown} (iloc {row})", None

    def column(self, name: str) -> list[str | None]:
        if name not in self.names:
            # quoted as the name is: a stray byte order mark or space in a header shows
            raise TreegenError(f"unknown column {name!r}; the columns are: {', '.join(map(repr, self.names))}"
                               + (did_you_mean([name], self.names) or delimiter_hint(self.names)), self.source)
        return self.columns[self.names.index(name)]


def delimiter_hint(names: Sequence[str]) -> str:
    """Why a header of one field holding ';' or a tab went wrong: a spreadsheet in a language whose decimal
    point is a comma saves CSV with semicolons, and many tools write tab-separated values. '' for any other
    header."""
    if len(names) == 1 and (";" in names[0] or "\t" in names[0]):
        held = "';'" if ";" in names[0] else "tabs"
        return f"; treegen reads comma-separated values, and the header is one field with {held} in it"
    return ""


def check_column_names(names: list[str], source: str, line: int = 1) -> None:
    seen = set()
    for name in names:
        if name in seen:
            raise TreegenError(f"column name {name!r} appears twice", source, line)
        seen.add(name)


def free_names(wanted: Iterable[str], names: Iterable[str], fold: Callable[[str], str] = str,
               spelt: Callable[[str, str], str] = str.__add__) -> list[str]:
    """The output columns ``wanted`` named beside the input columns ``names``: each the first of ``base``,
    ``base_2``, ``base_3``, ... that no column before it has, compared as ``fold`` makes them (an engine that
    folds case); ``spelt(base, suffix)`` writes each (within a length limit, say)."""
    taken = {fold(name) for name in names}
    out = []
    for base in wanted:
        name, n = spelt(base, ""), 1
        while fold(name) in taken:
            n += 1
            name = spelt(base, f"_{n}")
        taken.add(fold(name))
        out.append(name)
    return out


def split_names(values: Iterable[str]) -> list[str]:
    """Column names given comma-separated (an option's values, or one text): each value read as one
    CSV record, so that a name with a comma in it is written quoted, as in a header ('a,"income, net"')."""
    return [name.strip(SPACE) for value in values for name in _csv_record(value) if name.strip(SPACE)]


def _csv_record(value: str) -> list[str]:
    try:
        return next(csv.reader([value], skipinitialspace=True), [])
    except csv.Error:  # a line break outside double quotes
        raise TreegenError(f"cannot read the column names {value!r}: a name with a line break is written in "
                           "double quotes, as in a CSV header") from None


def name_argument(name: str) -> str:
    """``name`` as one shell word that :func:`split_names` reads back as the name, for a hint such as
    ``--nominal NAME``: in double quotes, as in a CSV header, when it holds a comma, a quote or a line
    break; then quoted for the shell, as bash's ``$'...'`` when a character is not printable (a line
    break), so that the hint stays on one line and pastes into bash."""
    return names_argument([name])


def names_argument(names: Iterable[str]) -> str:
    """Several names as one shell word that :func:`split_names` reads back as them, comma-separated
    (each quoted as :func:`name_argument` quotes one), for a hint such as ``--feature-names A,B``."""
    return shell_word(",".join(_quoted(name) if any(c in name for c in ',"\r\n') else name for name in names))


def feature_categories(value: str) -> tuple[str, list[str]]:
    """One ``--categories FEATURE=A,B,...``: the feature, up to the first '=' (spaces around it stripped), or
    in double quotes as in a CSV header when its name holds '=' ('"city=x"=A,B'); then its categories, read
    as one CSV record and kept exactly as written (spaces too), a category with a comma in double quotes
    ('city="New York, NY",Paris')."""
    quoted = re.match(r'"((?:[^"]|"")*)"=', value, re.DOTALL)
    if quoted:
        feature, categories = quoted[1].replace('""', '"'), value[quoted.end():]
    else:
        feature, equals, categories = value.partition("=")
        feature = feature.strip()
        if not equals or not feature or feature.startswith('"'):
            raise TreegenError(f"--categories {value!r}: expected FEATURE=A,B,... (a feature whose name holds '=' "
                               'in double quotes: "NAME"=A,B,...)')
    try:
        return feature, next(csv.reader([categories], strict=True)) if categories else [""]
    except csv.Error:  # text after a closing quote, a line break outside quotes
        raise TreegenError(f"--categories {value!r}: cannot read the categories {categories!r} as one CSV record: "
                           "a category with a comma, a quote or a line break is written in double quotes, a quote "
                           "in it doubled") from None


def categories_argument(feature: str) -> str:
    """The shell word of a hint ``--categories FEATURE=A,B,...`` that :func:`feature_categories` reads back
    as ``feature``'s."""
    plain = bool(feature) and feature == feature.strip() and not feature.startswith('"') and "=" not in feature
    return shell_word(f"{feature if plain else _quoted(feature)}=A,B,...")


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def shell_word(text: str) -> str:
    """``text`` as one shell word: quoted for the shell, as bash's ``$'...'`` when a character is not
    printable (a line break), so that a hint stays on one line and pastes into bash."""
    if text.isprintable():
        return shlex.quote(text)
    return "$'" + "".join(map(_ansi_c, text)) + "'"


def _ansi_c(c: str) -> str:
    """A character inside bash's ``$'...'``: escaped when it is a quote, a backslash or not printable."""
    if c in "\\'":
        return "\\" + c
    if c.isprintable():
        return c
    named = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(c)
    if named or c < "\x80":
        return named or f"\\x{ord(c):02x}"
    return f"\\u{ord(c):04x}" if c <= "\uffff" else f"\\U{ord(c):08x}"
