"""Universal Binary JSON (ubjson.org), as XGBoost writes its ``.ubj`` model files: read as data.

XGBoost's writer (``src/common/json.cc`` ``UBJWriter``, dmlc/xgboost v1.7.6 to v3.2.0) puts
big-endian scalars after a one-byte marker (``i`` int8, ``U`` uint8, ``I`` int16, ``l`` int32, ``L``
int64, ``d`` float32, ``D`` float64, ``T``/``F``/``Z``), strings as ``S`` + a length + UTF-8 bytes,
objects as ``{`` + (length, key bytes, value)... + ``}``, arrays as ``[#`` + a count + values, and
strongly typed arrays as ``[$`` + a type + ``#`` + a count + the packed values. This reader takes all
of those, and the plain ``[ ... ]`` arrays and counted ``{#`` objects of the specification, so that a
file any UBJSON writer produced from an XGBoost model reads too. float32 values stay exactly float32.
"""
from __future__ import annotations

import struct

SCALARS = {b"i": ">b", b"U": ">B", b"I": ">h", b"l": ">i", b"L": ">q", b"d": ">f", b"D": ">d", b"C": ">B"}


class UBJSONError(ValueError):
    """The bytes are not one complete UBJSON value; the message says what was found where."""


def loads(data: bytes):
    """The value (dicts, lists, str, int, float, bool, None) that ``data`` holds."""
    reader = _Reader(data)
    try:
        value = reader.value(reader.marker())
    except RecursionError:  # a hostile file's containers nested past Python's recursion limit
        raise UBJSONError("containers nested too deeply") from None
    if reader.pos != len(data):
        raise UBJSONError(f"unexpected bytes after the value, at byte {reader.pos}")
    return value


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.pos = data, 0

    def take(self, count: int) -> bytes:
        if count < 0 or self.pos + count > len(self.data):
            raise UBJSONError(f"the data ends early: {count} more bytes wanted at byte {self.pos} "
                              f"of {len(self.data)}")
        chunk = self.data[self.pos:self.pos + count]
        self.pos += count
        return chunk

    def marker(self) -> bytes:
        return self.take(1)

    def scalar(self, marker: bytes):
        fmt = SCALARS[marker]
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def count(self) -> int:
        marker = self.marker()
        if marker not in SCALARS or marker in (b"d", b"D"):
            raise UBJSONError(f"a length must be an integer, found marker {marker!r} at byte {self.pos - 1}")
        return self.scalar(marker)

    def text(self) -> str:
        raw = self.take(self.count())
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise UBJSONError(f"a string is not UTF-8, before byte {self.pos}") from None

    def value(self, marker: bytes):
        if marker in SCALARS:
            return self.scalar(marker)
        if marker == b"S":
            return self.text()
        if marker == b"{":
            return self.object()
        if marker == b"[":
            return self.array()
        if marker in (b"T", b"F", b"Z"):
            return {b"T": True, b"F": False, b"Z": None}[marker]
        raise UBJSONError(f"unknown marker {marker!r} at byte {self.pos - 1}")

    def array(self) -> list:
        marker = self.marker()
        if marker == b"$":  # strongly typed: one type, then the count, then the values
            kind = self.marker()
            if self.marker() != b"#":
                raise UBJSONError(f"a typed array has no count, at byte {self.pos - 1}")
            count = self.count()
            if kind in SCALARS:
                fmt = SCALARS[kind]
                return list(struct.unpack(f">{count}{fmt[1]}", self.take(count * struct.calcsize(fmt))))
            if count > len(self.data):  # T, F and Z take no bytes: a count from a damaged file would never end
                raise UBJSONError(f"a typed array of {count} values, more than the file's {len(self.data)} bytes")
            return [self.value(kind) for _ in range(count)]
        if marker == b"#":
            return [self.value(self.marker()) for _ in range(self.count())]
        items = []
        while marker != b"]":
            items.append(self.value(marker))
            marker = self.marker()
        return items

    def object(self) -> dict:
        out = {}
        if self.data[self.pos:self.pos + 1] == b"#":
            self.pos += 1
            for _ in range(self.count()):
                key = self.text()
                out[key] = self.value(self.marker())
            return out
        while self.data[self.pos:self.pos + 1] != b"}":
            key = self.text()
            out[key] = self.value(self.marker())
        self.take(1)
        return out
