"""The terminals of rule_text.lark as regular expressions, read from the grammar file without Lark.

The reader of the writer's layout (rule_lines.py) builds its patterns from the grammar's terminals. Lark
gives them, but importing Lark and compiling the grammar took 50-60 ms of each `treegen parse` (a fifth
of the command on a 1,000-leaf file), and an export, read by that reader alone, needs nothing else of
Lark. The terminals of this grammar are plain: a named terminal is one regular expression or a choice of
strings, every other terminal a string that a rule names. This module reads those, written as Lark
writes them (a choice of strings longest first, a string escaped); anything else in a definition makes it
give up (None), and Lark's terminals are used. tests/test_rule_text.py checks it gives exactly Lark's.
"""
from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass

GRAMMAR = os.path.join(os.path.dirname(__file__), "rule_text.lark")

# Lark's own grammar of a .lark file (lark/load_grammar.py: STRING, REGEXP, COMMENT), a token at a time
_TOKEN = re.compile(r'(?P<string>"(?:\\"|\\\\|[^"\n])*?"i?)|(?P<regexp>/(?!/)(?:\\/|\\\\|[^/])*?/[imslux]*)'
                    r"|(?P<comment>//[^\n]*)|(?P<space>\s+)|(?P<other>[^\s\"/]+|/)")
_DEFINITION = re.compile(r"(?P<rule>\??[a-z_][a-z_0-9]*)\s*:|(?P<terminal>_?[A-Z][_A-Z0-9]*)(?:\.-?\d+)?\s*:"
                         r"|(?P<directive>%\w+)")
_NOT_A_WORD_OF_THE_LEXER = {"WORD", "COMMENT", "_NL"}  # and 'keys' (rule_lines: the writer writes it bare)


@dataclass(frozen=True)
class Terminals:
    """``named``: each named terminal's regular expression; ``others``: those of every terminal the lexer may
    read a word as, other than WORD (the keywords but 'keys', NUMBER, CAST, ...)."""
    named: dict[str, str]
    others: tuple[str, ...]


def read_terminals(grammar_text: str) -> Terminals | None:
    """The terminals of a grammar (its text) as Lark compiles them; None if it holds anything but plain ones."""
    named: dict[str, str] = {}
    keywords: dict[str, None] = {}  # (ordered, once each)
    for head, body in _definitions(grammar_text):
        if head.group("directive"):
            if head.group("directive") != "%ignore":
                return None
            continue  # what is ignored is read as nothing: neither a name nor another word
        literals = [token for token in body if token.lastgroup not in ("space", "comment")]
        if head.group("terminal"):
            pattern = _terminal(literals)
            if pattern is None:
                return None
            named[head.group("terminal")] = pattern
            continue
        for token in literals:
            if token.lastgroup == "regexp":  # an anonymous pattern in a rule: not a plain grammar
                return None
            if token.lastgroup == "string":
                value = _string(token.group())
                if value is None:
                    return None
                keywords[re.escape(value)] = None
    others = [pattern for name, pattern in named.items() if name not in _NOT_A_WORD_OF_THE_LEXER]
    others += [pattern for pattern in keywords if pattern != "keys" and pattern not in named.values()]
    return Terminals(named, tuple(others))


def _definitions(grammar_text: str):
    """(the match of a definition's head, its body's tokens), a definition starting at a line's first column."""
    head, body = None, []
    for line in grammar_text.splitlines():
        start = _DEFINITION.match(line)
        if start is not None:
            if head is not None:
                yield head, body
            head, body = start, []
            line = line[start.end():]
        body.extend(_TOKEN.finditer(line))
    if head is not None:
        yield head, body


def _terminal(literals: list[re.Match]) -> str | None:
    """A named terminal's regular expression: its one pattern, or its choice of strings longest first."""
    if len(literals) == 1 and literals[0].lastgroup == "regexp":
        regexp = literals[0].group()
        return _unescaped(regexp[1:-1]) if regexp.endswith("/") else None  # (flags: not plain)
    choices = literals[0::2]
    if any(t.group() != "|" for t in literals[1::2]) or any(t.lastgroup != "string" for t in choices):
        return None
    values = [_string(t.group()) for t in choices]
    if None in values:
        return None
    if len(values) == 1:
        return re.escape(values[0])
    return "(?:" + "|".join(re.escape(v) for v in sorted(values, key=len, reverse=True)) + ")"


def _unescaped(body: str) -> str:
    """A regular expression's text as Lark's ``_fix_escaping`` makes it: Python's string escapes (\\x00, \\n,
    \\ud800) become the characters, the others (\\d, \\w, \\\\) stay as written."""
    written = re.sub(r"\\(.)", _escape_to_eval, body)
    written = written.replace('\\"', '"').replace("'", "\\'")
    return ast.literal_eval(f"u'''{written}'''")


def _escape_to_eval(escape: re.Match) -> str:
    """A backslash and the character after it as ``_fix_escaping`` hands them to ``literal_eval``."""
    character = escape.group(1)
    if character == "\\":
        return "\\" * 4
    return escape.group() if character in "Uuxnftr" else "\\" + escape.group()


def _string(literal: str) -> str | None:
    """A string literal's text: one with an escape or a flag is not plain."""
    return literal[1:-1] if literal.endswith('"') and "\\" not in literal else None


def grammar_text() -> str:
    with open(GRAMMAR, encoding="utf-8") as f:
        return f.read()
