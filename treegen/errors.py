"""Errors a user can cause: each carries where it happened, and prints as one line."""
from __future__ import annotations


class TreegenError(Exception):
    """A problem with the user's input (a file, an option, a model), not a bug in treegen.

    The CLI prints it as a single line ``FILE:LINE:COLUMN: message`` and exits with code 2.
    """

    def __init__(self, message: str, file: str | None = None, line: int | None = None,
                 column: int | None = None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column

    def __str__(self) -> str:
        where = [str(part) for part in (self.file, self.line, self.column) if part is not None]
        text = " ".join(self.message.splitlines()) or "error"
        return ":".join(where) + ": " + text if where else text

    def at(self, file: str | None = None, line: int | None = None) -> "TreegenError":
        """Fill in a location that the raiser did not know."""
        self.file = self.file if self.file is not None else file
        self.line = self.line if self.line is not None else line
        return self
