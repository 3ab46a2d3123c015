"""Errors a user can cause: each carries where it happened, and prints as one line."""
from __future__ import annotations

import contextlib
import difflib
import os
import shlex
import sys
from typing import Iterable, Mapping, Sequence


class TreegenError(Exception):
    """A problem with the user's input (a file, an option, a model), not a bug in treegen.

    The CLI prints it as a single line ``FILE:LINE:COLUMN: message`` and exits with code 2.
    """

    def __init__(self, message: str, file: str | None = None, line: int | None = None,
                 column: int | None = None, command_line: str | None = None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        # The message for the CLI's user, where ``message`` names a Python argument that the CLI
        # spells as an option: the CLI prints this one instead.
        self.command_line = command_line

    def __str__(self) -> str:
        return located(self.message, self.file, self.line, self.column)

    def at(self, file: str | None = None, line: int | None = None) -> "TreegenError":
        """Fill in a location that the raiser did not know."""
        self.file = self.file if self.file is not None else file
        self.line = self.line if self.line is not None else line
        return self


class TreegenWarning(UserWarning):
    """What reading data decided that its user may not have meant (a column of dates read as categories, a
    0/1 target learnt as a regression, ...): the lines the CLI says as ``treegen: warning: ...``."""


class BadArgument(TreegenError, ValueError):
    """A bad argument to the Python API, or option to the CLI (an unknown target, an option that does not
    apply, feature names that contradict a model's own): a ValueError too, as Python's own are, which a
    user's ``except ValueError`` catches."""


class NotAModel(TreegenError, TypeError):
    """The Python API was given something that is neither a model nor a way to one (``export(None)``,
    ``from_model(None)``): a TypeError too, as Python's own are."""


class MissingTool(TreegenError):
    """A program a target runs with is not installed (a JDK, Node.js, a C compiler): the user's to install. `verify`
    leaves a target it was not asked for by name unchecked for it, as a default SQL dialect's missing engine."""


class NotUtf8(TreegenError):
    """A file that is not UTF-8 text, the message saying how to convert it; ``encoding``: the one its byte
    order mark or its zeros name (UTF-16 or UTF-32 text), else None (a byte that UTF-8 has no place for);
    ``before``: the text before that byte."""

    def __init__(self, message: str, file: str, line: int, encoding: str | None, before: str = ""):
        super().__init__(message, file, line)
        self.encoding = encoding
        self.before = before


def located(message: str, file: str | None = None, line: int | None = None, column: int | None = None) -> str:
    """``FILE:LINE:COLUMN: message`` on one line, with the parts that are known."""
    where = [str(part) for part in (file, line, column) if part is not None]
    text = " ".join(message.splitlines()) or "error"
    return ":".join(where) + ": " + text if where else text


def read_text(path: str, what: str) -> str:
    """The UTF-8 text of a file ('-': standard input), or a TreegenError saying which ``what`` could not be read."""
    with open_bytes(path, what) as stream:
        raw = read_bytes(stream, path, what)
    check_utf8_start(raw[:64], path, what)
    return decoded(raw, path, what)


def open_bytes(path: str, what: str):
    """The file's bytes as a stream ('-': standard input, left open after use), or a TreegenError saying which
    ``what`` could not be opened."""
    if path == "-":
        return contextlib.nullcontext(sys.stdin.buffer)
    try:
        return open(path, "rb")
    except OSError as err:
        raise TreegenError(f"cannot read {what}: {err.strerror}", path) from None


def read_bytes(stream, path: str, what: str, size: int = -1) -> bytes:
    """Up to ``size`` bytes of ``stream`` (all: -1), or a TreegenError saying which ``what`` could not be read."""
    try:
        return stream.read(size)
    except OSError as err:
        raise TreegenError(f"cannot read {what}: {err.strerror}", path) from None


def check_utf8_start(head: bytes, path: str, what: str) -> None:
    """Refuse a file whose first bytes (64 of them) show UTF-16 or UTF-32 text: by a byte order mark, or
    by zeros (UTF-16 of ASCII without a BOM decodes as UTF-8, a NUL beside each letter)."""
    encoding = _encoding_of_bom(head) or _wide_encoding(head)
    if encoding is not None:
        raise NotUtf8(f"cannot read {what}: {encoding[:6].upper()} text, not UTF-8; "
                      f"{_reencode_hint(path, encoding)}", path, 1, encoding)


def decoded(raw: bytes, path: str, what: str, lines_before: int = 0, first: bool = True) -> str:
    """``raw`` decoded as UTF-8 (skipping a BOM when it is the file's ``first`` part), or NotUtf8 at the line of
    the first byte that is none: the part's line, after the ``lines_before`` lines of the parts before it."""
    try:
        return raw.decode("utf-8-sig" if first else "utf-8")
    except UnicodeDecodeError as err:  # its start counts in the bytes it decoded: after a BOM utf-8-sig took off
        before = err.object[:err.start]
        raise NotUtf8(f"cannot read {what}: not UTF-8 text; {_reencode_hint(path)}", path,
                      lines_before + before.count(b"\n") + 1, None, before.decode("utf-8")) from None


def _wide_encoding(head: bytes) -> str | None:
    """The encoding of a file in UTF-16 or UTF-32 without a byte order mark, from its first bytes: of ASCII
    characters, every other one (UTF-16) or three in four (UTF-32) a 0, leading when big-endian; None for any
    other file (UTF-8 has a 0 only for a NUL, in a name or value here and there)."""
    zeros = head.count(0)
    if 4 * zeros < len(head) or not head:
        return None
    return ("utf-32" if 8 * zeros > 5 * len(head) else "utf-16") + ("be" if head.startswith(b"\0") else "le")


# Byte order marks that UTF-8 cannot start with, as Windows' "Unicode" text (Notepad, Excel, PowerShell) begins;
# UTF-32's before UTF-16's, whose little-endian one begins UTF-32's
BOMS = {b"\xff\xfe\x00\x00": "utf-32", b"\x00\x00\xfe\xff": "utf-32", b"\xff\xfe": "utf-16", b"\xfe\xff": "utf-16"}


def _encoding_of_bom(raw: bytes) -> str | None:
    return next((encoding for bom, encoding in BOMS.items() if raw.startswith(bom)), None)


def _reencode_hint(path: str, encoding: str | None = None) -> str:
    """How to convert a file to UTF-8: from the encoding its byte order mark names, else from the one a
    spreadsheet on Windows most often writes."""
    if path == "-":  # standard input: no file to name ('- > --utf8')
        return f"convert it first, e.g. through iconv -f {encoding or 'cp1252'} -t utf-8"
    stem, ext = os.path.splitext(path)
    return (f"convert it first, e.g. iconv -f {encoding or 'cp1252'} -t utf-8 {shlex.quote(path)} > "
            f"{shlex.quote(stem + '-utf8' + ext)}")


def counted(count: int, noun: str, nouns: str | None = None) -> str:
    """'1 leaf', '2 leaves': a count and its noun, plural (``nouns``, else noun + s) but for one."""
    return f"{count} {noun if count == 1 else nouns or noun + 's'}"


def with_article(noun: str) -> str:
    """'an object', 'a Booster': the noun after its indefinite article, chosen by its first letter."""
    return f"{'an' if noun[:1].lower() in tuple('aeiou') else 'a'} {noun}"


def close_names(name: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The known names that ``name`` may be a misspelling of, closest first: those it is but for case
    ('SPECIES' for 'species'), else those difflib finds close with case ignored, else those of the same
    letters (difflib misses two letters swapped in a short word: 'fi' for 'if')."""
    by_folded: dict[str, list[str]] = {}
    for candidate in known:
        if candidate != name:
            by_folded.setdefault(candidate.casefold(), []).append(candidate)
    folded = name.casefold()
    if folded in by_folded:  # the same name but for case: no other is as close
        return by_folded[folded][:n]
    close = difflib.get_close_matches(folded, by_folded, n=n)
    if not close:
        close = [k for k in by_folded if sorted(k) == sorted(folded)]
    return [candidate for k in close for candidate in by_folded[k]][:n]


def did_you_mean(names: Sequence[str], known: Iterable[str], aliases: Mapping[str, str] | None = None) -> str:
    """'; did you mean 'humidity'?' after a message about unknown ``names``, naming the known names each
    may be a misspelling of (with the name it is for, when there are several); '' when none is close.
    ``aliases``: other names (in lower case) of known ones ('js': 'javascript'), each its known name's.
    Names are quoted as Python quotes them: a quote, a newline or a stray space in one shows."""
    if aliases and len(names) == 1 and names[0].strip().casefold() in aliases:
        return f"; did you mean {aliases[names[0].strip().casefold()]!r}?"
    known = list(known)
    guesses = [(name, close_names(name, known)) for name in names]
    guesses = [(name, close) for name, close in guesses if close]
    if not guesses:
        return ""
    if len(names) == 1:
        return f"; did you mean {' or '.join(map(repr, guesses[0][1]))}?"
    return "; did you mean " + ", ".join(f"{' or '.join(map(repr, close))} for {name!r}"
                                         for name, close in guesses) + "?"
