"""Weka's ARFF format: ``@relation``, ``@attribute`` (numeric or {nominal, values}), ``@data``.

Names and values may be quoted with ' or "; ``?`` is missing; ``%`` starts a comment.
Sparse rows (``{0 x, 3 y}``) are not supported and say so.
"""
from __future__ import annotations

from .errors import TreegenError
from .model import NOMINAL, NUMERIC, Feature
from .table import Table, check_column_names

NUMERIC_TYPES = {"numeric", "real", "integer"}


def split_fields(text: str, source: str, line: int, separators: str = ",") -> list[tuple[str, bool]]:
    """Split on separators outside quotes; each field comes with whether it was quoted."""
    fields, current, quote, quoted, i = [], [], None, False, 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and i + 1 < len(text):
                current.append(text[i + 1])
                i += 1
            elif ch == quote:
                quote = None
            else:
                current.append(ch)
        elif ch in "'\"" and not "".join(current).strip():
            quote, quoted, current = ch, True, []
        elif ch in separators:
            fields.append(("".join(current).strip() if not quoted else "".join(current), quoted))
            current, quoted = [], False
        else:
            current.append(ch)
        i += 1
    if quote:
        raise TreegenError("unterminated quote", source, line, len(text) + 1)
    fields.append(("".join(current).strip() if not quoted else "".join(current), quoted))
    return fields


def strip_comment(text: str) -> str:
    """The line up to a '%' that is outside quotes (ARFF comments may follow a declaration)."""
    quote = None
    for i, ch in enumerate(text):
        if quote:
            if ch == "\\":
                continue
            if ch == quote and text[i - 1] != "\\":
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "%":
            return text[:i]
    return text


def _attribute(rest: str, source: str, line: int, column: int) -> Feature:
    rest = rest.strip()
    if rest[:1] in "'\"":
        end = rest.find(rest[0], 1)
        while end > 0 and rest[end - 1] == "\\":
            end = rest.find(rest[0], end + 1)
        if end < 0:
            raise TreegenError("unterminated quote in attribute name", source, line, column)
        name, kind = split_fields(rest[:end + 1], source, line)[0][0], rest[end + 1:].strip()
    else:
        parts = rest.split(None, 1)
        if len(parts) < 2:
            raise TreegenError("expected '@attribute NAME TYPE'", source, line, column)
        name, kind = parts
    if kind.startswith("{"):
        if not kind.endswith("}"):
            raise TreegenError("nominal values must end with '}'", source, line, column + len(rest))
        values = [v for v, _ in split_fields(kind[1:-1], source, line)]
        return Feature(name, NOMINAL, tuple(v for v in values if v != ""))
    word = kind.split()[0].lower() if kind.split() else ""
    if word in NUMERIC_TYPES:
        return Feature(name, NUMERIC)
    if word in ("string", "date"):
        return Feature(name, NOMINAL, ())  # categories are collected from the data
    raise TreegenError(f"unsupported attribute type {kind!r}", source, line, column)


def parse_arff(text: str, source: str = "<arff>") -> Table:
    features: list[Feature] = []
    rows: list[list[str | None]] = []
    lines: list[int] = []
    in_data = False
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = strip_comment(raw).strip()
        if not stripped:
            continue
        if not in_data:
            keyword = stripped.split(None, 1)[0].lower()
            column = raw.index(stripped[0]) + 1
            if keyword == "@relation":
                continue
            if keyword == "@attribute":
                features.append(_attribute(stripped[len("@attribute"):], source, number, column))
            elif keyword == "@data":
                in_data = True
            else:
                raise TreegenError(f"expected @relation, @attribute or @data, found {stripped.split()[0]!r}",
                                   source, number, column)
            continue
        if stripped.startswith("{"):
            raise TreegenError("sparse ARFF rows are not supported", source, number, 1)
        fields = split_fields(stripped, source, number)
        if len(fields) != len(features):
            raise TreegenError(f"expected {len(features)} values as declared, found {len(fields)}", source, number)
        rows.append([None if (v == "?" and not q) else v for v, q in fields])
        lines.append(number)
    if not features:
        raise TreegenError("no @attribute declarations", source)
    if not in_data:
        raise TreegenError("no @data section", source)
    names = [f.name for f in features]
    check_column_names(names, source)
    columns = [list(col) for col in zip(*rows)] if rows else [[] for _ in features]
    for feature, column, in zip(features, columns):
        if feature.kind == NOMINAL and feature.categories:
            known = set(feature.categories)
            for value, line in zip(column, lines):
                if value is not None and value not in known:
                    raise TreegenError(f"{value!r} is not a declared value of {feature.name!r}", source, line)
    declared = {f.name: f for f in features if f.kind == NUMERIC or f.categories}
    return Table(source, names, columns, lines, declared)
