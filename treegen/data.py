"""Front end for data: CSV and ARFF files become a :class:`Table`, then a :class:`Dataset` to learn from.

CSV follows the one syntax that the generated programs read too (README, "program protocol"):
UTF-8 (a BOM skipped), RFC 4180 quoting, blank lines skipped, a header whose names are stripped of
spaces, the header's number of fields on every record. A field that is empty, ``?`` or ``NA`` (spaces around ignored) is
missing; any other field is used exactly as written: a number matches NUMBER (NaN is a missing
number), a category is the text. Column kinds are inferred (numeric when every non-missing value is
a number) unless forced, or declared by ARFF. Categories keep their declared order (ARFF) or their
order of first appearance (CSV), as Weka's loaders do.
"""
from __future__ import annotations

import csv
import io
import itertools
import math
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np

from .collector import collector_paused
from .errors import (TreegenError, check_utf8_start, counted, decoded, did_you_mean, located, open_bytes,
                     read_bytes, read_text)
from .model import NUMBER  # noqa: F401  (the number grammar of every reader; imported from here too)
from .model import (CLASSIFICATION, NOMINAL, NUMERIC, REGRESSION, Feature, Model, Target, category_of,
                    number_names)
from .table import SPACE, Table, check_column_names, delimiter_hint, name_argument, names_argument

MISSING_TOKENS = frozenset({"", "?", "NA"})  # after stripping SPACE from both ends
# NUMBER's language with each text matched one way only: NUMBER's [0-9]+\.?[0-9]* splits a run of digits anywhere,
# and a column's texts joined by line ends whose match failed late backtracked through every split (a word after
# 40 numbers took 324 s; predict of a file with one after 100 did not end)
# (infinity before inf: the longest first, so that a line's number ends where its line does, as NUMBERS needs)
NUMBER_ONE_WAY = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:infinity|inf|nan)"
# Its lines repeated possessively (*+: each line's number read whole, never given back, as a line end follows it):
# a plain * keeps a point to return to at each line, 670 bytes each, 134 MB for a column of 200,000 numbers
NUMBERS = re.compile(f"(?:{NUMBER_ONE_WAY})(?:\n(?:{NUMBER_ONE_WAY}))*+", NUMBER.flags)  # a column, one per line
# the characters of decimal numbers and of nan (a missing number's text), and line ends: float()'s language over
# these is NUMBER's
DECIMALS = re.compile(r"[0-9.eE+\-na\n]*+")
# a number written with thousands separators ('1,234.5', as a spreadsheet or f"{x:,}" writes it): text to treegen
THOUSANDS = re.compile(r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]*)?")
# an ISO 8601 date, perhaps with a time and a zone: a nominal column of them is likely meant as a time (_dates)
DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}"
                  r"(?:[ T][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?")


@dataclass
class Dataset:
    """Encoded learning data: numeric columns as float64 (NaN missing), nominal as int codes (-1 missing)."""

    features: tuple[Feature, ...]
    columns: list[np.ndarray]
    target: Target
    y: np.ndarray  # classification: int codes into target.classes; regression: float64
    weights: np.ndarray
    # The feature columns over every row of the file, in file order, the rows left out for a missing
    # target included (J48 still counts them where it looks at all the data it was given: which
    # attributes take part, where thresholds move); empty when no row was left out.
    all_columns: list[np.ndarray] = field(default_factory=list)
    dates: dict[str, str] = field(default_factory=dict)  # feature read from an ARFF date -> its format
    left_out: int = 0  # rows of the file left out for a missing target
    table_rows: list[int] = field(default_factory=list)  # the file's row of each row; empty when none was left out

    def __len__(self) -> int:
        return len(self.y)

    def subset(self, rows: np.ndarray) -> "Dataset":
        return Dataset(self.features, [c[rows] for c in self.columns], self.target, self.y[rows],
                       self.weights[rows], dates=self.dates)

    def rows(self) -> list[dict]:
        """Rows as the model's predict() takes them: {feature name: float, str or None}."""
        decoded = [decode(f, c) for f, c in zip(self.features, self.columns)]
        names = [f.name for f in self.features]
        return [dict(zip(names, values)) for values in zip(*decoded)]

    def labels(self) -> list:
        if self.target.is_classification:
            return [self.target.classes[k] for k in self.y]
        return [float(v) for v in self.y]


def decode(feature: Feature, column: np.ndarray) -> list:
    """An encoded column (see :func:`encode`) as row values: floats, categories, None for missing."""
    if feature.is_numeric:
        numbers = np.asarray(column, dtype=np.float64).tolist()
        return [None if x != x else x for x in numbers]  # NaN, the only value not equal to itself
    return [None if k < 0 else feature.categories[k] for k in column.tolist()]


# -- reading files ---------------------------------------------------------------------------

ROWS_A_PART = 65_536  # `treegen predict`'s rows in memory at once: its memory stays flat however big the file
_BLOCK = 1 << 20  # bytes decoded at once


def read_table(path: str) -> Table:
    """Read a CSV (header row) or ARFF file, chosen by the file name's extension."""
    return next(read_tables(path, None))


def read_tables(path: str, rows: int | None) -> Iterator[Table]:
    """A CSV file read a part at a time: tables of ``rows`` rows each (the last one fewer), their lines the file's,
    so that a big file need not be held whole (``None``: one table of every row). An ARFF file is one table. What
    is wrong with the file is said when the part that shows it is read (the header's at the first)."""
    if (binary := _binary_data(path)) is not None:
        raise TreegenError(f"this is {binary[0]}, not CSV or ARFF data: {binary[1]}", path)
    if (kind := _model_file(path)) is not None:  # else UTF-16 to convert with iconv, or a LightGBM model's
        raise TreegenError(f"this is {kind}, not CSV or ARFF data", path)  # "no feature columns besides 'tree'"
    if path.lower().endswith(".arff"):
        from .arff import parse_arff
        text = read_text(path, "data")
        _refuse_model_text(text, path)
        yield parse_arff(text.replace("\r\n", "\n"), path)
        return
    with open_bytes(path, "data") as stream:
        # decoded with utf-8-sig, so the one BOM the programs skip is gone: a second one is text (part of the first
        # name), as the programs read it. Line ends are csv's to read: a CRLF inside quotes stays in the value.
        yield from _csv_tables(_text_blocks(stream, path), path, rows)


def _text_blocks(stream, path: str) -> Iterator[str]:
    """A data file's UTF-8 text a block of whole lines at a time (each but the last ends with a line end); the
    blocks' bytes reported to treegen.progress as read."""
    from .progress import settled
    lines_before, first, pieces, head = 0, True, [], None
    while True:
        block = read_bytes(stream, path, "data", _BLOCK)
        head = block[:64] if head is None else head  # the file's first bytes, for the encoding they show
        # a full block is cut after its last line end; a short one is the file's end (a buffered read is short
        # only there) and is decoded whole, so that a file of one block is decoded before the CSV reader reads it
        cut = block.rfind(b"\n") + 1 if len(block) == _BLOCK else len(block)
        if block and not cut:  # no line ends in it: a line goes on in the next block
            pieces.append(block)
            continue
        raw = b"".join([*pieces, block[:cut]]) if pieces else block[:cut]
        pieces = [block[cut:]] if cut < len(block) else []
        if first:
            check_utf8_start(head, path, "data")
        text = decoded(raw, path, "data", lines_before, first)
        if first:
            _refuse_model_text(text, path)
        lines_before, first = lines_before + raw.count(b"\n"), False
        settled(len(raw))
        yield text
        if not block:
            return


def _refuse_model_text(text: str, path: str) -> None:
    if (kind := _model_text(text)) is not None:  # else its second line would be 'expected 1 fields'
        raise TreegenError(f"this looks like {kind}, not CSV or ARFF data", path)


# Files that are taken for data but hold no text, by their first bytes: what each is, and what to do. Each was told
# "not UTF-8 text" (or UTF-16, by its zeros) and to convert it with iconv; a .csv.gz was a joblib pickle.
BINARY_DATA = ((b"PK\x03\x04", "a zip archive (an Excel .xlsx workbook is one)",
                "save the sheet as CSV (UTF-8), or unzip the CSV file in it"),
               (b"\xd0\xcf\x11\xe0", "an Excel .xls workbook", "save the sheet as CSV (UTF-8)"),
               (b"PAR1", "a Parquet file",
                "write it as CSV, e.g. pandas.read_parquet(path).to_csv('data.csv', index=False)"),
               (b"\x1f\x8b", "a gzip-compressed file", "gunzip it first"))


def _binary_data(path: str) -> tuple[str, str] | None:
    """What a data file is and what to do, when it begins as one of BINARY_DATA; None for any other (and for one
    that cannot be read: read_text says why), and for a pipe (`<(zcat data.csv.gz)`), whose bytes a look would take."""
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError:
        return None
    return next(((what, todo) for start, what, todo in BINARY_DATA if head.startswith(start)), None)


def _model_file(path: str) -> str | None:
    """What a data file is, when a library's importer recognises it as a model file (or it is a pickle); None
    for standard input and for a file named .csv or .arff, which is data whatever its first line says."""
    from .importers import library_file
    if path == "-" or path.lower().endswith((".csv", ".arff")):
        return None
    return {"model": "a model file (as `treegen import` reads it)", "pickle": "a pickle or joblib file",
            None: None}[library_file(path)]


def _model_text(text: str) -> str | None:
    """What a data file's text is, when it begins as a model's: a treegen (or a library's) model in JSON, or
    rule text (which begins with its header); else None. A CSV header does not begin with '{'."""
    start = text[:1000].lstrip()[:13]  # not the whole text copied
    return "a model (JSON)" if start[:1] == "{" else "rule text" if start == "treegen rules" else None


def parse_csv(text: str, source: str = "<csv>") -> Table:
    """Parse CSV text, skipping one BOM at its start (only one: the programs skip one)."""
    return _parse_csv(text[1:] if text.startswith("\ufeff") else text, source)


def _parse_csv(text: str, source: str) -> Table:
    return next(_csv_tables([text], source, None))


def _csv_tables(texts: Iterable[str], source: str, rows: int | None) -> Iterator[Table]:
    """Tables of ``rows`` records each (None: one of every record) from a CSV's text given a block of whole lines
    at a time (:func:`_record_pieces`), with the header's names; the first even when there is no record."""
    pieces = _record_pieces(texts, source)
    names, header_line = next(pieces)
    part, lines, parts = [[] for _ in names], [], 0
    for columns, starts in pieces:
        while starts:
            take = len(starts) if rows is None else min(rows - len(lines), len(starts))
            for column, piece in zip(part, columns):
                column += piece[:take]
            lines += starts[:take]
            columns, starts = [piece[take:] for piece in columns], starts[take:]
            if len(lines) == rows:
                yield Table(source, names, list(map(_missing_as_none, part)), lines, {}, header_line=header_line)
                part, lines, parts = [[] for _ in names], [], parts + 1
    if lines or not parts:
        yield Table(source, names, list(map(_missing_as_none, part)), lines, {}, header_line=header_line)


def _record_pieces(texts: Iterable[str], source: str) -> Iterator:
    """The header's names and line, then the records of a CSV's text a piece at a time, as their columns and the
    lines they start on. A block of lines with no quote, no CR and no line longer than csv's field limit is split at
    its commas and line ends (what csv's reader reads it as, three times as fast); from the first other block on,
    csv's reader reads the rest."""
    texts, before, names = iter(texts), 0, None
    for text in texts:
        lines = text.split("\n")
        if '"' in text or "\r" in text or max(map(len, lines)) > csv.field_size_limit():
            break
        if lines[-1] == "":  # the block's last line end
            lines.pop()
        if names is None and (header := next((i for i, line in enumerate(lines) if line), None)) is not None:
            before += header + 1  # the header's line
            names = _header_names(lines[header].split(","), source, before)
            yield names, before
            lines = lines[header + 1:]
        for at in range(0, len(lines) if names is not None else 0, ROWS_A_PART):  # (a block of short lines: many)
            yield from _plain_records(lines[at:at + ROWS_A_PART], before + at + 1, names, source)
        before += len(lines)
    else:
        if names is None:  # blank lines or none
            _header_names(None, source, 1)  # raises: an empty file
        return
    # csv's reader, for the rest of the text: its line numbers counted on from the lines before
    reader = csv.reader(itertools.chain.from_iterable(io.StringIO(text, newline="") for text in
                                                      itertools.chain([text], texts)), strict=True)
    if names is None:
        header, line = _record(reader, source, before)
        names = _header_names(header, source, line)
        yield names, line
    while True:
        # the piece's records, lists the collector would walk, made into columns and let go before it runs again
        with collector_paused():
            records, starts, wrong = _records(reader, source, names, ROWS_A_PART, before)
            columns = [list(c) for c in zip(*records)]
            del records
        if starts:
            yield columns, starts
        if wrong is not None:  # once the records before it are taken (see _plain_records)
            raise wrong
        if not starts:
            return


def _header_names(header: list[str] | None, source: str, line: int) -> list[str]:
    """A header record's names, stripped of spaces; None or a header of no name is an empty file."""
    if not header or not any(h.strip(SPACE) for h in header):
        raise TreegenError("empty file: expected a header row", source, line if header else 1)
    names = [h.strip(SPACE) for h in header]
    check_column_names(names, source, line)
    return names


def _plain_records(lines: list[str], first: int, names: list[str], source: str
                   ) -> Iterator[tuple[list[list[str]], list[int]]]:
    """The columns and lines of CSV lines with no quote and no CR (the first on line ``first``); a blank line is
    none, a line of another number of fields than the header's an error. The error is raised once the records before
    it are taken, as csv's reader reads them: those that make a part of a file read a part at a time are that part,
    written by `predict` before the error (a piece reaches past a part, and its line may be the next part's)."""
    starts = range(first, first + len(lines))
    if "" in lines:
        starts = [start for start, line in zip(starts, lines) if line]
        lines = [line for line in lines if line]
    width = len(names)
    commas = list(map(str.count, lines, itertools.repeat(",")))
    wrong = next(i for i, count in enumerate(commas) if count != width - 1) \
        if commas.count(width - 1) != len(commas) else len(lines)
    if wrong:  # (none when blank lines only: ''.split(',') would be one field)
        yield _split_lines(lines[:wrong], width), list(starts[:wrong])  # (held by nothing here till the next)
    if wrong < len(lines):
        raise _wrong_width(names, commas[wrong] + 1, source, starts[wrong])


def _wrong_width(names: list[str], found: int, source: str, line: int) -> TreegenError:
    """The error of a record of ``found`` fields where the header has ``names``."""
    return TreegenError(f"expected {counted(len(names), 'field')} as in the header, found {found}"
                        + delimiter_hint(names), source, line)


def _split_lines(lines: list[str], width: int) -> list[list[str]]:
    """The columns of lines of ``width`` fields each, split at their commas."""
    fields = ",".join(lines).split(",")
    return [fields[j::width] for j in range(width)]


def _records(reader, source: str, names: list[str], rows: int, before: int
             ) -> tuple[list[list[str]], list[int], TreegenError | None]:
    """Up to ``rows`` records and the line each starts on (after ``before`` lines the reader did not read); a blank
    line is none (see :func:`_record`). And what is wrong with the record after them, if anything: an error for the
    caller to raise once it has taken them (see :func:`_plain_records`)."""
    records, starts, end, width = [], [], before + reader.line_num, len(names)
    try:
        for record in reader:
            start, end = end + 1, before + reader.line_num
            if record:
                if len(record) != width:
                    return records, starts, _wrong_width(names, len(record), source, start)
                records.append(record)
                starts.append(start)
                if len(records) == rows:
                    break
    except csv.Error as err:
        return records, starts, _malformed(err, source, end + 1)
    return records, starts, None


def _missing_as_none(column: list[str]) -> list[str | None]:
    """A column's fields with each that reads as missing (:func:`reads_as_missing`) None: the column itself when
    none does. Told in C: a column without a space, '?' or 'NA' in its text and without an empty field has none; else
    without a space, no field needs stripping."""
    joined = "".join(column)
    spaced = SPACE in joined
    if not spaced and all(column) and "?" not in joined and "NA" not in joined:
        return column
    if MISSING_TOKENS.isdisjoint(map(str.strip, column, itertools.repeat(SPACE)) if spaced else column):
        return column
    return [None if text.strip(SPACE) in MISSING_TOKENS else text for text in column]


def reads_as_missing(text: str) -> bool:
    """Whether a CSV field holding ``text`` is missing, as treegen and every generated program read it."""
    return text.strip(SPACE) in MISSING_TOKENS


def uncarried_categories_warning(model: Model) -> str | None:
    """What a user must know of a model whose categories include one a CSV field reads as missing ('NA'
    from an ARFF file or a pandas category): in a CSV it is missing, so its rows predict as missing rows
    (`verify` checks them so); a program's API, given the text, takes the category. None when there is none
    (a feature no split tests does not count: its value changes no prediction)."""
    used = [model.features[index] for index in model.used_features()]
    found = {f.name: [c for c in f.categories if reads_as_missing(c)] for f in used if not f.is_numeric}
    named = [f"{', '.join(map(repr, spelt))} of feature {name!r}" for name, spelt in found.items() if spelt]
    if not named:
        return None
    one = sum(map(len, found.values())) == 1
    it, categories, works = ("it", "category", "works") if one else ("one of them", "categories", "work")
    return (f"a CSV cannot carry the {categories} {'; '.join(named)}: an empty field, '?' or 'NA' (spaces "
            f"around them aside) reads as missing, so a CSV row with {it} predicts as a row with the value missing "
            f"(verify checks it so); through the generated code's APIs (a Python dict or list, Java, ...) the "
            f"{categories} {works}")


def _record(reader, source: str, before: int = 0) -> tuple[list[str] | None, int]:
    """The next CSV record (None at the end) and the line it starts on (after ``before`` lines the reader did not
    read). A blank line (no characters at all, which csv reads as []) is no record, as pandas and R skip it; a line
    `""` is one empty field."""
    while True:
        start = before + reader.line_num + 1
        try:
            row = next(reader, None)
        except csv.Error as err:
            raise _malformed(err, source, start) from None
        if row != []:
            return row, start


def _malformed(err: csv.Error, source: str, line: int) -> TreegenError:
    what = ("a quoted field is not closed" if "end of data" in str(err)
            else "text after a closing quote" if "expected after" in str(err) else f"malformed CSV: {err}")
    return TreegenError(what, source, line)


def parse_number(text: str) -> float | None:
    """The float of text that matches NUMBER (NaN for a missing number); None for any other text."""
    return float(text) if NUMBER.fullmatch(text) else None


# -- writing files ---------------------------------------------------------------------------

def csv_text(records: Iterable[Sequence]) -> str:
    """Records as CSV in the syntax the readers above (and every generated program) read back: what
    ``csv.writer(lineterminator="\\n")`` writes (None as an empty field, a float as its repr), but a field
    holding a bare CR is quoted too (csv's writer quotes only its own line end, and a lone CR ends a
    line here), and so is one starting with a byte order mark (the readers skip one that starts the text).
    Records of texts that need no quotes are joined by commas and line ends (four times as fast as csv's writer);
    csv's writer writes any others, five times as fast as a field by field writer in Python (predict's 50,000 rows:
    0.06 s against 0.29 s); only a text holding a CR or a byte order mark is written field by field."""
    records = list(records)
    if (text := _joined(records)) is not None:
        return text
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(records)
    text = out.getvalue()
    if "\r" not in text and "\ufeff" not in text:
        return text
    return "".join(_csv_line([_csv_field(value) for value in record]) + "\n" for record in records)


def _joined(records: list[Sequence]) -> str | None:
    """Records of texts joined by commas and line ends, when that is what csv's writer writes: no text holds a
    comma, a quote, a line end or a byte order mark, and no line is blank (a record of one empty text is quoted).
    None otherwise (a None or a number among them, too)."""
    try:
        text = "\n".join(map(",".join, records))
    except TypeError:
        return None
    plain = (text.count(",") == sum(map(len, records)) - len(records) and text.count("\n") == len(records) - 1
             and not any(c in text for c in '"\r\ufeff') and "\n\n" not in text
             and text[:1] not in ("\n", "") and text[-1:] != "\n")
    return text + "\n" if plain else None


def _csv_line(fields: list[str]) -> str:
    return '""' if fields == [""] else ",".join(fields)  # one empty field quoted: a blank line is no record


def _csv_field(value) -> str:
    text = "" if value is None else str(value)
    if any(c in text for c in ',"\r\n') or text.startswith("\ufeff"):
        return '"' + text.replace('"', '""') + '"'
    return text


# -- from a table to a data set ----------------------------------------------------------------

def infer_feature(name: str, values: Sequence[str | None], nominal: bool = False) -> Feature:
    present = [v for v in values if v is not None]
    if not nominal and present and _all_numbers(present):
        return Feature(name, NUMERIC)
    return Feature(name, NOMINAL, tuple(dict.fromkeys(present)))


def _all_numbers(texts: list[str]) -> bool:
    """Whether every text is a number (:func:`parse_number`), matched without converting it (half the time)."""
    return all(map(NUMBER.fullmatch, texts))


def to_dataset(table: Table, target: str | None = None, nominal: Iterable[str] = (),
               regression: bool | None = None, ignore: Iterable[str] = ()) -> Dataset:
    """Choose the target (default: the last column), infer or take each column's kind, encode.

    Rows whose target is missing (NaN too, for a regression target) are left out, as Weka does.
    """
    target = target if target is not None else table.names[-1]
    target_values = table.column(target)
    nominal = dict.fromkeys(nominal)  # in the order given: the first unknown one is named, in every run
    ignore = dict.fromkeys(ignore)
    for name in [*nominal, *ignore]:
        table.column(name)  # unknown names are an error
    feature_names = [n for n in table.names if n != target and n not in ignore]
    for name in [target, *feature_names]:
        if not name:  # a CSV may have one (a saved index column): it reads, but cannot be learned from
            place = table.names.index(name)
            raise TreegenError(f"column {place + 1} has no name" + _nameless_hint(table, place), table.source,
                               table.header_line)
    declared = table.declared.get(target)
    if declared is not None:
        numeric_target = declared.is_numeric
    else:
        numeric_target = all(parse_number(v) is not None for v in target_values if v is not None)
    if regression is None:
        regression = numeric_target and target not in nominal
    if regression and not numeric_target:
        raise TreegenError(f"target {target!r} is not numeric, so it cannot be a regression target", table.source)
    keep = [i for i, v in enumerate(target_values)
            if v is not None and not (regression and math.isnan(float(v)))]
    if not keep:
        raise TreegenError("no rows with a value for the target column " + repr(target), table.source)
    if not feature_names:
        raise TreegenError("no feature columns besides the target " + repr(target) + delimiter_hint(table.names),
                           table.source)

    features, columns, all_columns = [], [], []
    dropped = not regression and len(keep) < len(table)
    for name in feature_names:
        column = table.column(name)
        values = column if len(keep) == len(table) else _rows_of(table, name, column, keep)
        feature = table.declared.get(name) or infer_feature(name, values, name in nominal)
        if name in nominal and feature.is_numeric:
            feature = infer_feature(name, values, nominal=True)
        features.append(feature)
        columns.append(encode(feature, values, table, name, keep))
        if dropped:
            all_columns.append(encode(feature, table.column(name), table, name))

    labels = [target_values[i] for i in keep]
    if regression:
        tgt = Target(target, REGRESSION)
        y = np.array([float(v) for v in labels])
        if np.isinf(y).any():  # here, where the line is known (the learner refuses it too, for the API's data)
            row = keep[int(np.flatnonzero(np.isinf(y))[0])]
            raise TreegenError(f"the target {target!r} has an infinite value ({target_values[row]!r}): a regression "
                               "target must be finite", *table.place(row))
    else:
        classes = declared.categories if declared is not None and declared.categories else tuple(dict.fromkeys(labels))
        tgt = Target(target, CLASSIFICATION, classes)
        code = {c: k for k, c in enumerate(classes)}
        y = np.array([code[v] for v in labels], dtype=np.int64)
    weights = np.ones(len(keep)) if table.weights is None else np.array([table.weights[i] for i in keep])
    dates = {name: table.dates[name] for name in feature_names if name in table.dates}
    return Dataset(tuple(features), columns, tgt, y, weights, all_columns, dates, left_out=len(table) - len(keep),
                   table_rows=keep if len(keep) < len(table) else [])


def _nameless_hint(table: Table, place: int) -> str:
    """What to do with a CSV's nameless column: the first, pandas' to_csv writes the frame's index so; the last,
    empty in every row, is a comma at the end of every line (as some spreadsheets write)."""
    if table.declared:  # (an ARFF file declares its attributes)
        return ""
    if place == 0:
        return " (pandas' to_csv writes its index so: write the file with to_csv(..., index=False))"
    if place == len(table.names) - 1 and all(value is None for value in table.columns[place]):
        return " and no value: every line ends with a comma; remove it"
    return ""


def number_hint(text: str) -> str:
    """What to do with a Boolean's text (pandas writes a bool column as True/False), a number's with thousands
    separators, or another tool's spelling of a missing value, in a numeric column."""
    if text.strip().lower() in ("true", "false"):
        return " (a Boolean? the model reads it as a number: write 1 or 0)"
    if THOUSANDS.fullmatch(text.strip(SPACE)):
        return f" (thousands separators? write it {text.strip(SPACE).replace(',', '')})"
    if text.strip(SPACE).lower() in MISSING_ELSEWHERE:  # another tool's missing value (a SQL export's NULL)
        return " (missing? treegen's CSV reads only an empty field, '?' or 'NA' as missing)"
    return ""


def encode(feature: Feature, values: Sequence[str | None], table: Table, name: str,
           keep: Sequence[int] | None = None, unknown: int = -1, cast: str = "float64") -> np.ndarray:
    """A column encoded for learning or the vectorised walk: numbers as float64 (NaN missing),
    categories as codes (-1 missing; ``unknown`` for a value the feature does not know). A feature
    of codes reads a text that is no category as the number it spells (:func:`treegen.model.category_of`,
    under the model's ``cast``)."""
    if feature.is_numeric:
        numbers = _arff_numbers(table, name, values)
        if numbers is not None:
            return numbers.copy()
        texts = values if None not in values else ["nan" if v is None else v for v in values]
        numbers = _numbers(texts) if not _read_as_doubles(table, name) else _floats(texts)
        if numbers is None:  # find the culprit
            i = next(i for i, text in enumerate(texts) if parse_number(text) is None)
            raise TreegenError(f"column {name!r}: {values[i]!r} is not a number" + number_hint(values[i]),
                               *table.place(keep[i] if keep is not None else i))
        return numbers
    code = {c: k for k, c in enumerate(feature.categories)}
    if feature.codes is not None:
        code_of = {}  # each distinct text read once: a column repeats its values
        for v in set(values).difference(code, (None,)):
            name = category_of(feature, v, cast)
            code_of[v] = unknown if name is None else code[name]
        code = {**code, **code_of}
    return np.array([-1 if v is None else code.get(v, unknown) for v in values], dtype=np.int64)


def _numbers(texts: list[str]) -> np.ndarray | None:
    """The floats of texts that each match NUMBER; None when one does not. They are matched in one regex pass over
    them joined by line ends (a text, a quoted field, that holds a line end itself is none, though each of its lines
    may be one: '"1\\n2"'); a column of ASCII digits, points, signs, exponents and nan alone is left to float(),
    whose language over those characters is NUMBER's (a fifth of NUMBERS' time)."""
    if not texts:
        return _floats(texts)
    joined = "\n".join(texts)
    if joined.count("\n") != len(texts) - 1 or not (DECIMALS.fullmatch(joined) or NUMBERS.fullmatch(joined)):
        return None
    try:
        return _floats(texts)
    except ValueError:  # a text of those characters that is no number ('1e', '.', '1-2')
        return None


def _floats(texts: list[str]) -> np.ndarray:
    return np.fromiter(map(float, texts), dtype=np.float64, count=len(texts))


def _rows_of(table: Table, name: str, column: Sequence[str | None], rows: list[int]) -> Sequence[str | None]:
    """The column's values at these rows."""
    if _arff_numbers(table, name, column) is not None:
        return column.take(rows)
    return [column[i] for i in rows]


def _arff_numbers(table: Table | None, name: str, values: Sequence[str | None]) -> np.ndarray | None:
    """The doubles of an ARFF numeric column (:class:`treegen.arff.Doubles`), which stand for its
    texts; None for any other column."""
    if not _read_as_doubles(table, name):
        return None
    from .arff import Doubles  # imported already: the table is ARFF's
    return values.numbers if isinstance(values, Doubles) else None


def _read_as_doubles(table: Table | None, name: str) -> bool:
    """Whether the column's texts are the reprs of doubles already, as an ARFF numeric column's are:
    then they need no check (a check that takes most of the time of encoding a large column)."""
    declared = table.declared.get(name) if table is not None else None
    return declared is not None and declared.is_numeric


def rows_for_model(table: Table, model: Model) -> list[dict]:
    """Rows of a table as a model's predict() takes them (see :func:`model_columns`)."""
    names = model_columns(table, model)
    decoded = []
    for feature, name in zip(model.features, names):
        if name is None:
            decoded.append([None] * len(table))
        elif feature.is_numeric:
            decoded.append(decode(feature, encode(feature, table.column(name), table, feature.name)))
        else:
            decoded.append(table.column(name))
    keys = [f.name for f in model.features]
    return [dict(zip(keys, row)) for row in zip(*decoded)] if decoded else [{} for _ in range(len(table))]


def model_columns(table: Table, model: Model) -> list[str | None]:
    """For each feature of the model, the table's column it reads, or None for a feature that no split
    tests (its column is ignored, present or not). Absent columns are an error naming them all, as the
    generated programs word it. A CSV header's names are stripped of spaces, so a name is looked up as
    written, then stripped (as the generated programs match it)."""
    used = set(model.used_features())
    names = []
    for index, feature in enumerate(model.features):
        name = feature.name if feature.name in table.names else feature.name.strip(SPACE)
        names.append(name if index in used else None)
    absent = [feature.name for index, feature in enumerate(model.features)
              if index in used and names[index] not in table.names]
    if absent:
        named = ", ".join(repr(name) for name in absent)
        unread = [name for name in table.names if name not in names]  # a column another feature reads is no guess
        raise TreegenError(f"no column{'s' if len(absent) > 1 else ''} named {named}"
                           + (_respelt_hint(model, table, absent) or did_you_mean(absent, unread)
                              or delimiter_hint(table.names)
                              or _renaming_hint(model, table, len(absent) / len(used))),
                           table.source, table.header_line)
    return names


def near_category_notes(table: Table, model: Model, label_column: str | None = None) -> list[str]:
    """One line for each nominal column of the model whose values include some that are no category of
    the model but are one with spaces stripped or case aside (' high', 'High' for 'high'), or spell the number
    of one ('1.0' for '1', as pandas writes an int column that holds a NaN): treegen and every generated
    program read them as written, as categories the model does not know, and say nothing. Each column's
    distinct values are looked at once; its rows are counted only when some are near. Given ``label_column``
    (the labels evaluate tests a classifier on), lines too for its values that are a class of the model so:
    evaluate counts them as labels the model does not know, hence wrong."""
    return near_notes(model, model_columns(table, model), unknown_values(table, model, label_column), label_column)


def unknown_values(table: Table, model: Model, label_column: str | None = None) -> dict[tuple[str, str], Counter]:
    """The values of each nominal column the model reads (and of ``label_column``, a classifier's labels) that are no
    category (class) of the model as written, each counted, in the order they first appear, under (the column's
    name, "category" or "class"): what :func:`near_notes` reads. A file read a part at a time adds up its parts'
    (Counter.update keeps that order)."""
    found = {}
    for feature, name in zip(model.features, model_columns(table, model)):
        if name is not None and not feature.is_numeric and not _read_as_doubles(table, name):
            found[name, "category"] = _unknown(table.column(name), feature.categories)
    if label_column in table.names and model.target.is_classification:
        found[label_column, "class"] = _unknown(table.column(label_column), model.target.classes)
    return found


def _unknown(column: list, known: Sequence[str]) -> Counter:
    known = set(known)
    return Counter({value: n for value, n in Counter(column).items() if value is not None and value not in known})


def near_notes(model: Model, names: Sequence[str | None], unknown: dict[tuple[str, str], Counter],
               label_column: str | None = None) -> list[str]:
    """:func:`near_category_notes` from the columns' :func:`unknown_values`; ``names``: the column each feature of
    the model reads (:func:`model_columns`)."""
    notes = []
    for feature, name in zip(model.features, names):
        if (name, "category") in unknown:
            read = lambda value: category_of(feature, value, model.numeric.cast) is not None  # a code's number ('3.0')
            notes += _near_notes(name, unknown[name, "category"], feature.categories, read, "category",
                                 ("take", "takes"), "the route of a category the model does not know (a missing "
                                 "value's)")
    if (label_column, "class") in unknown:
        notes += _near_notes(label_column, unknown[label_column, "class"], model.target.classes, lambda value: False,
                             "class", ("are", "is"), "labels the model does not know, counted as wrong")
    return notes


def _near_notes(name: str, unknown: Counter, known: Sequence[str], read_as_known: Callable[[str], bool],
                kind: str, verbs: tuple[str, str], rest: str) -> list[str]:
    """The lines that say a column's values are near a category or class (``kind``) of the model: with spaces
    stripped or case aside, or spelling its number; and what becomes of them (``verbs``, plural and singular, and
    ``rest``); none where no value is. ``unknown``: the column's values that are neither, counted in the order they
    first appear."""
    notes = []
    for near, how, what in ((_near_categories(known, unknown, read_as_known), "one with spaces stripped or case aside",
                             "spaces and case count"),
                            (_number_categories(known, unknown, read_as_known), "spell the number of one",
                             "the text counts, not its number")):
        if near:
            count = sum(unknown[value] for value in near)
            value = next(value for value in unknown if value in near)
            they = "they" if count > 1 else "it"
            notes.append(f"column {name!r}: {count} value{'s' * (count > 1)} {'are' if count > 1 else 'is'} no "
                         f"{kind} of the model but {how} ({value!r} for {near[value]!r}): {what}, so {they} "
                         f"{verbs[count == 1]} {rest}")
    return notes


def _near_categories(known: Sequence[str], unknown: Iterable[str],
                     read_as_known: Callable[[str], bool] = lambda value: False) -> dict[str, str]:
    """Of values that are none of ``known`` as written (a nominal feature's categories, or the classes), those
    that are one with spaces stripped or case aside, each with that one; but those ``read_as_known`` (a
    feature's code) all the same."""
    by_folded = {category.strip().casefold(): category for category in reversed(known)}
    near = {}
    for value in unknown:
        category = by_folded.get(value.strip().casefold())
        if category is not None and not read_as_known(value):
            near[value] = category
    return near


def _number_categories(known: Sequence[str], unknown: Iterable[str],
                       read_as_known: Callable[[str], bool]) -> dict[str, str]:
    """Of values that are none of ``known`` as written, those that read as the number of one (the category a
    number names: :func:`treegen.model.number_names`), each with that one; but those ``read_as_known``."""
    by_number = None
    near = {}
    for value in unknown:
        number = parse_number(value)
        if number is None or read_as_known(value):
            continue
        by_number = number_names(known) if by_number is None else by_number
        category = by_number.get(number + 0.0)  # (-0.0 is 0.0; NaN names none)
        if category is not None:
            near[value] = category
    return near


def _respelt_hint(model: Model, table: Table, absent: Sequence[str]) -> str:
    """How to import again a model whose file keeps the names of the columns it was fitted on respelt, where the
    table has them as they were (LightGBM writes 'sepal length (cm)' as 'sepal_length_(cm)': the importer's
    renamed_hint knows): with --feature-names, the table's names in the model's order. Before, a guess of close
    names for each feature, several lines long."""
    from .importers import renamed_hint
    if "library" not in model.meta or not renamed_hint(model, absent, table.names):
        return ""
    own = {name: next((column for column in table.names if renamed_hint(model, [name], [column])), name)
           for name in absent}
    example = next(name for name in absent if own[name] != name)
    given = names_argument([own.get(feature.name, feature.name) for feature in model.features])
    return (f"; {model.meta['library']} stored the names of the columns it was fitted on respelt ({own[example]!r} "
            f"as {example!r}): import it again with treegen import --feature-names {given}")


def _renaming_hint(model: Model, table: Table, absent_share: float) -> str:
    """How to name anew the features of an imported model where a table has none or few of them (half or
    more absent): its names come from its file, and a model fitted on arrays has x0, x1, ... (LightGBM's
    Column_0, ...). The table's own names are the ones to give when it has as many columns as the model."""
    names = [feature.name for feature in model.features]
    if "library" not in model.meta or absent_share < 0.5:
        return ""
    given = names_argument(table.names) if len(table.names) == len(names) <= 20 else "NAME,..."
    if names in ([f"x{i}" for i in range(len(names))], [f"Column_{i}" for i in range(len(names))]):
        return ("; the model was fitted on arrays, without column names: import it again with "
                f"treegen import --feature-names {given} (the columns' names in the order it was fitted on)")
    return ("; the model's feature names are those of the columns it was fitted on, which its file keeps: name "
            "the table's columns as the model does (in the order of its features)")


def load_dataset(path: str, **options) -> Dataset:
    return to_dataset(read_table(path), **options)


# -- what a user may not have meant ---------------------------------------------------------------

class Spelling:
    """How a hint names a choice of training: as the CLI's options (``--nominal NAME``), or as the
    arguments of :func:`treegen.train` (``nominal=['NAME']``), so that both say the same in their words."""

    def __init__(self, python: bool):
        self.python = python

    def nominal(self, name: str) -> str:
        return f"nominal=[{name!r}]" if self.python else f"--nominal {name_argument(name)}"

    def ignore(self, name: str | None = None) -> str:
        """The option that leaves out column ``name`` (the option alone, without one)."""
        if name is None:
            return "ignore" if self.python else "--ignore"
        return f"ignore=[{name!r}]" if self.python else f"--ignore {name_argument(name)}"

    def algorithm(self, name: str) -> str:
        return f"algorithm={name!r}" if self.python else f"--algorithm {name}"

    def regression(self, wanted: bool) -> str:
        return f"regression={wanted}" if self.python else "--regression" if wanted else "--classification"


CLI, PYTHON = Spelling(python=False), Spelling(python=True)


def refuse_regression(algorithm: str, regression: bool | None, spell: Spelling = CLI) -> None:
    """A regression asked of a learner of classes is refused, not learnt as one class per value."""
    if algorithm in ("id3", "c45") and regression:
        raise TreegenError(f"{algorithm} learns classes only; use {spell.algorithm('cart')} for regression")


def learning_data(table: Table, target: str | None, nominal: Sequence[str], ignore: Sequence[str],
                  regression: bool | None, algorithm: str, spell: Spelling = CLI,
                  chosen: Sequence[str] | None = None, float32: bool = False) -> tuple[Dataset, list[str]]:
    """The data set ``algorithm`` learns from the table, and what reading it decided that its user may
    not have meant (:func:`training_warnings`), one line each: the one decision of the CLI and of
    :func:`treegen.train`. ``regression``: True or False when asked for, None for the data's own kind;
    ``chosen``: the ``nominal`` columns chosen so, not warned of (all, by default; a frame's text columns
    are nominal by their dtype, and warned of as a CSV's).
    A target of one value, or features none of which has a value, is refused: there is nothing to learn.
    ``float32``: learnt on float32 casts (cart's cast float32), which refuses a value they make infinite."""
    refuse_regression(algorithm, regression, spell)
    target_name = target if target is not None else (table.names[-1] if table.names else None)
    if target_name in ignore:
        raise TreegenError(f"{spell.ignore()} names the target column {target_name!r}")
    dataset = to_dataset(table, target, nominal, False if algorithm in ("id3", "c45") else regression, ignore)
    if len(dataset) == 0:
        raise TreegenError("the data set has no rows", table.source)
    if len(set(dataset.labels())) == 1:
        raise TreegenError(f"the target {dataset.target.name!r} has one value only "
                           f"({dataset.labels()[0]!r}): there is nothing to learn", table.source)
    if not any(map(has_values, dataset.features, dataset.columns)):
        raise TreegenError(f"no feature column has a value (every row's is missing): there is nothing to learn "
                           f"{dataset.target.name!r} from", table.source)
    if not dataset.target.is_classification and (problem := target_sum_problem(dataset)):
        raise TreegenError(problem, table.source)  # (the learner checks it too, but knows no file)
    if float32 and (problem := float32_problem(dataset)):
        message, row = problem  # (the learner checks it too, but knows no file)
        raise TreegenError(message, *table.place(dataset.table_rows[row] if dataset.table_rows else row))
    chosen = nominal if chosen is None else chosen
    return dataset, training_warnings(table, dataset, chosen, algorithm, regression, spell)


def target_sum_problem(dataset: Dataset) -> str | None:
    """Why a regression target cannot be learnt, or None: its weighted sum of sizes must be finite, every node's
    sum and mean then a number, where an infinite value or sums beyond the largest double would leave a leaf
    inf or NaN, which no model file holds (scikit-learn refuses an infinite target, and its sums overflow too)."""
    y, weights = np.asarray(dataset.y, dtype=np.float64), np.asarray(dataset.weights, dtype=np.float64)
    if np.isinf(y).any():
        return f"the target {dataset.target.name!r} has an infinite value: a regression target must be finite"
    with np.errstate(over="ignore"):
        total = float(np.sum(np.abs(y) * weights))
    if not math.isfinite(total):
        return (f"the target {dataset.target.name!r} is too large: its sum overflows a double (its largest value "
                f"is {float(np.abs(y).max()):g}); scale it down")
    return None


def learns_float32(algorithm: str, params: dict) -> bool:
    """Whether the learner learns on float32 casts of the values: cart with cast float32, or replaying
    scikit-learn's tree (random_state)."""
    return algorithm == "cart" and (params.get("cast") == "float32" or params.get("random_state") is not None)


def float32_problem(dataset: Dataset) -> tuple[str, int] | None:
    """Why scikit-learn's float32 copy of the data refuses it, and the row: a numeric value that is infinite
    there, inf or a number past float32's largest, 3.4028235e38 (its "Input X contains infinity or a value too
    large for dtype('float32')"), which the grower would learn from as inf; None when there is none. The first row
    with one, and its first such column."""
    found = []  # (row, column) of each column's first
    for j, (feature, column) in enumerate(zip(dataset.features, dataset.columns)):
        if feature.is_numeric:
            with np.errstate(over="ignore"):
                infinite = np.flatnonzero(np.isinf(np.asarray(column, dtype=np.float64).astype(np.float32)))
            if len(infinite):
                found.append((int(infinite[0]), j))
    if not found:
        return None
    row, j = min(found)
    return (f"column {dataset.features[j].name!r}: {float(dataset.columns[j][row])!r} is infinite or too large for "
            "float32, which scikit-learn refuses (cast float32 learns on float32 copies of the values)"), row


def has_values(feature: Feature, column: np.ndarray) -> bool:
    """Whether an encoded column has a value in some row."""
    return bool((~np.isnan(column) if feature.is_numeric else column >= 0).any())


def training_warnings(table: Table, dataset: Dataset, nominal: Iterable[str], learner: str,
                      regression: bool | None = None, spell: Spelling = CLI) -> list[str]:
    """What reading the table into the data set decided that its user may not have meant, one line each
    (with the file and line where there is one), its hints spelt as ``spell`` spells options; none for a
    column or target that --nominal names, nor for a target's kind that ``regression`` (--regression or
    --classification, when given) chose."""
    nominal = set(nominal)
    names = [f.name for f in dataset.features if not f.is_numeric]
    if dataset.target.is_classification:
        names.append(dataset.target.name)
    read_as_categories = {name: _numbers_read_as_categories(table, name, spell) for name in names
                          if name not in nominal and name not in table.declared}
    warnings = [_no_values(feature, column, spell) for feature, column in zip(dataset.features, dataset.columns)]
    warnings += read_as_categories.values()
    warnings += [_dates(table, feature, spell) or _booleans(table, feature, spell)
                 or _one_value_a_row(dataset, feature, column, spell)
                 for feature, column in zip(dataset.features, dataset.columns)
                 if feature.name not in nominal and not read_as_categories.get(feature.name)]  # not one warned of
    if dataset.target.name not in nominal and dataset.target.name not in table.declared:
        warnings.append(_class_per_value(dataset, learner, spell))
        warnings.append(None if regression is not None else _regression_of_labels(dataset, learner, spell))
    elif dataset.target.name not in nominal:
        warnings.append(_declared_numeric_classes(table, dataset, learner, spell))
    warnings.append(_spaced_values(table, dataset, {name for name, said in read_as_categories.items() if said}))
    return [w for w in warnings if w]


def _spaced_values(table: Table, dataset: Dataset, warned: set[str]) -> str | None:
    """Categories (of the CSV's nominal columns and target) that begin or end with a space, as a CSV written
    with ', ' between fields has: read as written, ' high' is not 'high', here and in every generated program.
    An ARFF file declares its values, spaces and all; a column ``warned`` of names its texts already."""
    codes = [(f, c) for f, c in zip(dataset.features, dataset.columns) if not f.is_numeric]
    if dataset.target.is_classification:
        codes.append((dataset.target, dataset.y))
    found = []
    for feature, column in codes:  # the target's classes too
        categories = feature.classes if feature is dataset.target else feature.categories
        spaced = [k for k, category in enumerate(categories) if category != category.strip()]
        if spaced and feature.name not in table.declared and feature.name not in warned:
            rows = int(np.isin(column, spaced).sum())
            found.append(f"{feature.name!r} ({categories[spaced[0]]!r}{', ...' * (len(spaced) > 1)}: {rows} "
                         f"row{'s' * (rows != 1)})")
    if not found:
        return None
    return (f"values begin or end with a space in column{'s' * (len(found) > 1)} {', '.join(found)}: treegen "
            "reads a CSV's values exactly as written, as the generated programs do, so ' high' and 'high' are "
            "different categories; remove the spaces unless they are meant")


def _no_values(feature: Feature, column: np.ndarray, spell: Spelling) -> str | None:
    """A column missing in every row: no split can test it (the learners pass it by)."""
    if has_values(feature, column):
        return None
    return (f"column {feature.name!r} has no value (every row's is missing): no split tests it; "
            f"{spell.ignore(feature.name)} leaves it out")


def _one_value_a_row(dataset: Dataset, feature: Feature, column: np.ndarray, spell: Spelling) -> str | None:
    """A nominal column with a different value in every row (more than 20): an identifier, which a tree
    splits on to tell the training rows apart, and which tells nothing of a row it has not seen."""
    rows = len(dataset)
    if feature.is_numeric or rows <= 20 or len(np.unique(column[column >= 0])) < rows:
        return None
    return (f"column {feature.name!r} has a different value in every row ({rows}), as an identifier has: "
            f"a split on it predicts nothing for new rows; {spell.ignore(feature.name)} leaves it out")


def _dates(table: Table, feature: Feature, spell: Spelling) -> str | None:
    """A nominal CSV column of dates (ISO 8601: 2026-01-31, perhaps a time): categories, as every other text,
    where its user likely meant a time to split on; a date the training rows lack is an unknown category."""
    if (feature.is_numeric or feature.name in table.declared or not feature.categories
            or not all(map(DATE.fullmatch, feature.categories))):
        return None
    return (f"column {feature.name!r} holds dates ({feature.categories[0]}, ...), read as categories: a split tests "
            "dates one by one, and a date the training rows lack is an unknown category; to split on time, give it "
            f"as a number (e.g. days since a day you choose), or {spell.ignore(feature.name)} leaves it out")


def _booleans(table: Table, feature: Feature, spell: Spelling) -> str | None:
    """A nominal CSV column of True and False (as pandas writes a bool column): categories, as every generated
    program reads the text, which a SQL table holding the column as 1 and 0 does not match (a BOOLEAN names them,
    where an engine has one: DuckDB, PostgreSQL, Spark). Measured: pandas' to_sql into SQLite answered 13 of 60 rows
    otherwise than treegen predict, without an error."""
    if (feature.is_numeric or feature.name in table.declared or not feature.categories
            or not {c.casefold() for c in feature.categories} <= {"true", "false"}):
        return None
    return (f"column {feature.name!r} holds {' and '.join(feature.categories)}, read as categories: a SQL table that "
            "holds it as 1 and 0 (pandas' to_sql into SQLite, MySQL's BOOLEAN) matches no category, and the SQL reads "
            "every row's as unknown; write the column as 1 and 0 to read it as a number, or "
            f"{spell.nominal(feature.name)} says the categories are meant")


def _regression_of_labels(dataset: Dataset, learner: str, spell: Spelling) -> str | None:
    """A numeric target that cart learns as a regression though its values are a few small whole numbers
    (a 0/1 or 1..5 label), which c45 and id3 learn as classes."""
    if dataset.target.is_classification or learner != "cart":
        return None
    values = np.unique(dataset.y)
    if len(values) > 10 or not all(float(v).is_integer() and abs(v) <= 1e6 for v in values):
        return None
    shown = ", ".join(str(int(v)) for v in values)
    return (f"target {dataset.target.name!r} is numeric with {len(values)} whole-number values ({shown}): "
            f"cart learns a regression tree of it; {spell.regression(False)} learns them as classes "
            f"({spell.regression(True)} keeps the regression)")


# Spellings of a missing value in other tools' exports (pandas, R, SQL, Excel, SAS), compared in lower case,
# which treegen's CSV reads as text: its missing fields are empty, '?' and 'NA' only, as every generated
# program reads them, so these are named in the warning rather than read as missing.
MISSING_ELSEWHERE = frozenset({"n/a", "#n/a", "na", "null", "none", "nil", "-", "--", ".", "missing"})


def _numbers_read_as_categories(table: Table, name: str, spell: Spelling) -> str | None:
    """A column of numbers but for a few texts (NULL, #N/A, -) that made it a column of categories; or but
    for any number of other tools' spellings of a missing value, which the warning names."""
    counts = Counter(v for v in table.column(name) if v is not None)
    texts = {v for v in counts if parse_number(v) is None}
    count, present = sum(counts[v] for v in texts), sum(counts.values())
    spelt_missing = texts and all(v.strip(SPACE).lower() in MISSING_ELSEWHERE for v in texts)
    separated = texts and all(THOUSANDS.fullmatch(v.strip(SPACE)) for v in texts)  # however many: all, say
    if not texts or (count == present or 2 * count >= present and not spelt_missing) and not separated:
        return None
    row = next(i for i, v in enumerate(table.column(name)) if v in texts)
    first = table.column(name)[row]
    are = "is" if count == 1 else "are"
    if separated:
        said = (f"{count} of its {present} values {are} written with thousands separators, the first {first!r}; "
                f"write them without ({first.strip(SPACE).replace(',', '')}) to read the column as numbers")
    elif spelt_missing:
        spellings = " and ".join(map(repr, sorted(texts, key=table.column(name).index)))
        said = (f"{count} of its {present} values {are} {spellings}, which treegen's CSV does not read as missing "
                f"(only an empty field, '?' or 'NA': replace {'it' if count == 1 else 'them'})")
    else:
        said = (f"{count} of its {present} values {are} not {'a number' if count == 1 else 'numbers'}, the first "
                f"{first!r}; an empty field, '?' or 'NA' is missing")
    return located(f"column {name!r} is read as categories: {said}, and {spell.nominal(name)} keeps "
                   "the column as categories", *table.place(row))


def _declared_numeric_classes(table: Table, dataset: Dataset, learner: str, spell: Spelling) -> str | None:
    """An ARFF file's target declared numeric, learnt as classes (c45, id3): J48 refuses a numeric class."""
    name = dataset.target.name
    if not (dataset.target.is_classification and table.declared[name].is_numeric):
        return None
    classes = len(dataset.target.classes)
    return (f"target {name!r} is declared numeric: {learner} learns its {classes} distinct values as {classes} "
            f"classes (Weka's J48 refuses a numeric class); for a regression tree use {spell.algorithm('cart')} "
            f"({spell.nominal(name)} keeps them as classes)")


def _class_per_value(dataset: Dataset, learner: str, spell: Spelling) -> str | None:
    """A numeric target learnt as classes, one per value, when its values are too many to be labels: more
    than ten (a 0/1 or 1..5 label is a label) and more than the square root of the number of rows."""
    classes = dataset.target.classes
    if len(classes) <= 10 or len(classes) ** 2 <= len(dataset) or any(parse_number(c) is None for c in classes):
        return None
    name = dataset.target.name
    return (f"target {name!r} is numeric with {len(classes)} distinct values: {learner} learns them as "
            f"{len(classes)} classes; for a regression tree use {spell.algorithm('cart')} "
            f"({spell.nominal(name)} keeps them as classes)")
