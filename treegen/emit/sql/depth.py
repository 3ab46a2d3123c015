"""How deep SQLite's parser stack goes to read an expression: the writer keeps every query within the
stack (``Dialect.parser_depth``) by nesting a tree's ``CASE`` less deep where the stack would overflow.

SQLite's parser (lemon, LALR) holds on its stack each symbol read but not yet reduced: the open
brackets, and a pending operator with its left operand where a right operand is being read. Its
stack has 100 entries (YYSTACKDEPTH in the build of Python's sqlite3 module and of the sqlite3 shell);
one more is the error "parser stack overflow". The entries below were measured with Python's sqlite3
(SQLite 3.40), each the number of parentheses around ``x`` that no longer fit with the construct
around them (`CASE WHEN x THEN {} ELSE 0 END`: 5, and so on). :func:`depth` adds them up along the
text; on the expressions treegen writes it is SQLite's count or one more (tests/test_sql_depth.py).
"""
from __future__ import annotations

import re
import sqlite3
from contextlib import closing
from functools import lru_cache

DERIVED_TABLE = 6  # SELECT ... FROM (SELECT t.*, {} AS c FROM ... AS t LIMIT -1 OFFSET 0) AS u
# entries before a bracket's expression: ``(`` (also ``x IN (``, its operand and IN counted as an
# operator's; a later item: 2 more); a function's first argument ``f(``, a later one ``f(a, ``; ``CAST(``
PAREN, FIRST_ARGUMENT, LATER_ARGUMENT, CAST = 1, 3, 5, 2
CAST_TYPE = 3  # CAST( x AS REAL: the operand, AS and the type's name
# a CASE: its first condition (CASE, an empty operand, WHEN), its value, a later condition and its
# value (the WHENs before are one list), the ELSE
FIRST_WHEN, FIRST_THEN, LATER_WHEN, LATER_THEN, ELSE = 3, 5, 4, 6, 4
OPERATOR = 2  # a binary operator waiting for its right operand: the left operand and the operator
UNARY = 1  # a prefix - or NOT

# binary operators by SQLite's precedence (parse.y), the higher binding tighter
PRECEDENCE = {"OR": 1, "AND": 2, "IS": 4, "IN": 4, "GLOB": 4, "LIKE": 4, "=": 4, "==": 4, "<>": 4, "!=": 4,
              "<": 5, ">": 5, "<=": 5, ">=": 5, "+": 7, "-": 7, "*": 8, "/": 8, "%": 8, "||": 9}
NOT_PRECEDENCE, MINUS_PRECEDENCE = 3, 10
KEYWORDS = {"CASE", "CAST", "NOT", "WHEN", "THEN", "ELSE", "END", "AND", "OR", "IS", "IN", "GLOB", "LIKE", "AS"}
TOKEN = re.compile(r"""\s*(?:('(?:[^']|'')*+'|"(?:[^"]|"")*+"|`(?:[^`]|``)*+`|[0-9.]+(?:[eE][+-]?[0-9]+)?)"""
                   r"""|([A-Za-z_][A-Za-z_0-9]*)|(<=|>=|<>|!=|==|\|\||[-+*/%<>=(),])|@([0-9]+)@)""")
# (quoted text repeated possessively, *+: a plain * kept a point to return to at each character, 150 MB for
# a literal of 1 MB)
# @12@: a stand-in for an operand 12 entries deep (Writer.stand_in: a named value measured once)


class _Bracket:
    """An open bracket: the entries before its expression, and the operators waiting in it."""

    __slots__ = ("kind", "first", "base", "waiting", "whens")

    def __init__(self, kind: str, base: int):
        self.kind, self.first, self.base, self.waiting, self.whens = kind, base, base, [], 0

    def entries(self) -> int:
        return self.base + sum(entries for _, entries in self.waiting)

    def reduce(self, precedence: int) -> None:
        """The operators that bind at least as tightly as the next one are done."""
        while self.waiting and self.waiting[-1][0] >= precedence:
            self.waiting.pop()


def depth(text: str) -> int:
    """The parser stack entries SQLite uses to read the expression ``text`` (at its deepest point)."""
    brackets = [_Bracket("top", 0)]
    below, deepest = 0, 0  # the entries of the brackets around the innermost one
    operand, previous = True, ""  # whether the next token starts an operand; the last token
    opening = False  # the "(" that follows a function's name or CAST
    for match in TOKEN.finditer(text):
        literal, word, symbol, stand_in = match.groups()
        token, inner = (word.upper() if word else symbol), brackets[-1]
        if stand_in:
            deepest = max(deepest, below + inner.entries() + int(stand_in))
            operand = False
            continue
        called = word is not None and text[match.end():match.end() + 1] == "("
        if operand and (literal is not None or (word and not called and token not in KEYWORDS)):
            deepest = max(deepest, below + inner.entries() + 1)
            operand = False
        elif operand and (called or token == "CASE"):
            below += inner.entries()
            brackets.append(_Bracket("case", FIRST_WHEN) if token == "CASE" else
                            _Bracket("cast", CAST) if token == "CAST" else _Bracket("call", FIRST_ARGUMENT))
            opening = token != "CASE"
        elif token == "(" and opening:
            opening = False
        elif token == "(":
            below += inner.entries()
            brackets.append(_Bracket("paren", PAREN))
        elif operand and token in ("-", "+") or token == "NOT" and operand and previous != "IS":
            inner.waiting.append((NOT_PRECEDENCE if token == "NOT" else MINUS_PRECEDENCE, UNARY))
        elif token in ("WHEN", "THEN", "ELSE") and inner.kind == "case":
            inner.waiting.clear()
            inner.whens += token == "WHEN"
            first = inner.whens == 1
            inner.base = {"WHEN": FIRST_WHEN if first else LATER_WHEN, "THEN": FIRST_THEN if first else LATER_THEN,
                          "ELSE": ELSE}[token]
            operand = True
        elif token in (")", "END"):
            brackets.pop()
            below -= brackets[-1].entries()
            operand = False
        elif token == ",":
            inner.waiting.clear()
            inner.base = LATER_ARGUMENT if inner.kind == "call" else inner.first + OPERATOR
            operand = True
        elif token == "AS" and inner.kind == "cast":  # the type's name is read on top of the operand
            inner.waiting.clear()
            deepest = max(deepest, below + inner.base + CAST_TYPE)
        elif token in PRECEDENCE and not operand:
            inner.reduce(PRECEDENCE[token])
            inner.waiting.append((PRECEDENCE[token], OPERATOR))
            operand = True
        previous = token
    return deepest


def sqlite_reads(sql: str, expression: bool = False) -> bool:
    """Whether SQLite's parser reads the query (with ``expression``: the expressions as a SELECT's
    columns) without overflowing its stack, asked of the sqlite3 module's own SQLite: only where its
    stack is the usual 100 entries (:func:`usual_stack`), else False (measure with :func:`depth`)."""
    if not usual_stack():
        return False
    return _refusal(f"SELECT {sql} FROM input" if expression else sql) is None


def sqlite_stack_holds(column: str, tables: int = 0) -> bool:
    """Whether SQLite's parser stack holds ``column`` (an expression, or ``expression AS name``) as a later item
    of a SELECT inside ``tables`` derived tables, as the query nests each step's columns (:meth:`Writer.query`),
    asked of the sqlite3 module's own SQLite: only where its stack is the usual 100 entries, else False. (SQLite
    may refuse the column for another reason, which nesting it less would not cure.)"""
    if not usual_stack():
        return False
    inner = f"SELECT t.*, {column} FROM input AS t"
    statement = "SELECT t.* FROM (" * tables + inner + ") AS t LIMIT -1 OFFSET 0" * tables
    return _refusal(statement) != "parser stack overflow"


@lru_cache(maxsize=1)
def usual_stack() -> bool:
    """The sqlite3 module's SQLite overflows where a stock build does: 18 CASEs nested in THEN read, 19 do
    not (a build with a deeper or growing stack would accept SQL that the user's SQLite may refuse)."""
    nested = lambda n: "SELECT " + "CASE WHEN x THEN " * n + "1" + " END" * n + " FROM input"
    return _refusal(nested(18)) is None and _refusal(nested(19)) is not None


def _refusal(sql: str) -> str | None:
    """SQLite's error reading the statement, None where it parsed: SQLite parses the whole statement before
    it looks up a name, so a missing table means it parsed. The statement is prepared as it is, in an empty
    database (nothing to run): ``EXPLAIN`` before it would take one more entry of the stack, and refuse SQL
    that fits as a query by itself."""
    with closing(sqlite3.connect(":memory:")) as connection:
        try:
            connection.execute(sql)
        except sqlite3.Error as err:
            return None if str(err).startswith("no such table") else str(err)
    return None
