"""Errors a user can cause: each carries where it happened, and prints as one line."""
from __future__ import annotations

import difflib
import os
import shlex
from typing import Iterable, Sequence


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


def located(message: str, file: str | None = None, line: int | None = None, column: int | None = None) -> str:
    """``FILE:LINE:COLUMN: message`` on one line, with the parts that are known."""
    where = [str(part) for part in (file, line, column) if part is not None]
    text = " ".join(message.splitlines()) or "error"
    return ":".join(where) + ": " + text if where else text


def read_text(path: str, what: str) -> str:
    """The UTF-8 text of a file, or a TreegenError saying which ``what`` could not be read."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as err:
        raise TreegenError(f"cannot read {what}: {err.strerror}", path) from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = raw[:err.start].count(b"\n") + 1
        raise TreegenError(f"cannot read {what}: not UTF-8 text; {_reencode_hint(path)}", path, line) from None


def _reencode_hint(path: str) -> str:
    """How to convert a file to UTF-8, from the encoding a spreadsheet on Windows most often writes."""
    stem, ext = os.path.splitext(path)
    return f"convert it first, e.g. iconv -f cp1252 -t utf-8 {shlex.quote(path)} > {shlex.quote(stem + '-utf8' + ext)}"


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


def did_you_mean(names: Sequence[str], known: Iterable[str]) -> str:
    """'; did you mean 'humidity'?' after a message about unknown ``names``, naming the known names each
    may be a misspelling of (with the name it is for, when there are several); '' when none is close.
    Names are quoted as Python quotes them: a quote, a newline or a stray space in one shows."""
    known = list(known)
    guesses = [(name, close_names(name, known)) for name in names]
    guesses = [(name, close) for name, close in guesses if close]
    if not guesses:
        return ""
    if len(names) == 1:
        return f"; did you mean {' or '.join(map(repr, guesses[0][1]))}?"
    return "; did you mean " + ", ".join(f"{' or '.join(map(repr, close))} for {name!r}"
                                         for name, close in guesses) + "?"
