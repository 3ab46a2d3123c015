"""Errors a user can cause: each carries where it happened, and prints as one line."""
from __future__ import annotations


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
        where = [str(part) for part in (self.file, self.line, self.column) if part is not None]
        text = " ".join(self.message.splitlines()) or "error"
        return ":".join(where) + ": " + text if where else text

    def at(self, file: str | None = None, line: int | None = None) -> "TreegenError":
        """Fill in a location that the raiser did not know."""
        self.file = self.file if self.file is not None else file
        self.line = self.line if self.line is not None else line
        return self


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
        raise TreegenError(f"cannot read {what}: not UTF-8 text", path, line) from None
