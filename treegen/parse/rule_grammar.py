"""Rule text read by its grammar, rule_text.lark beside this file (Lark's LALR parser and the transformer
named after the grammar's rules), and its mistakes said in a user's words at their line and column.

The grammar decides what rule text is. An export, in the writer's layout, is read without it (rule_lines.py,
with the grammar's terminals read by grammar_terminals.py): Lark is imported only for text in another layout,
every mistake, and the columns of the errors found after the text is read.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache

from lark import Lark, Token, Transformer, Tree, v_args
from lark.lexer import PatternRE, TerminalDef
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from ..errors import TreegenError, close_names
from ..lower import NOT_TUPLE, TUPLE
from . import rule_doc as doc
from .grammar_terminals import Terminals, grammar_text


@lru_cache(maxsize=1)
def parser() -> Lark:
    """LALR with the transformer applied while parsing: no parse tree is built."""
    return Lark(grammar_text(), parser="lalr", maybe_placeholders=True, transformer=RulesToModel(),
                edit_terminals=_whole_word)


def _whole_word(terminal: TerminalDef) -> None:
    """A keyword is read only as a whole word. Otherwise the lexer, where only keywords may stand, reads
    the misspelt 'iff' as 'if' and a name 'f', and the error falls on whatever follows; this way 'iff' is
    a name, which the parser refuses at the word, with the keywords it expected. WORD matches a keyword
    too: the keyword is tried first (priority 1, WORD's is 0; NUMBER's 2 never reads a letter first)."""
    pattern = terminal.pattern
    if pattern.type == "str" and re.fullmatch(r"\w+", pattern.value):
        terminal.pattern = PatternRE(re.escape(pattern.value) + r"(?!\w)", pattern.flags)
        terminal.priority = 1


@lru_cache(maxsize=1)
def terminals() -> Lark:
    """The grammar's terminals alone, for the reader of the writer's layout: without the parser's
    tables, which take two thirds of the time to build and only a text in another layout needs. Its
    keywords are the grammar's plain strings: that reader matches whole words with them anyway."""
    return Lark(grammar_text(), parser=None, lexer="basic")


def lark_terminals() -> Terminals:
    """The grammar's terminals as Lark compiles them (what grammar_terminals reads without Lark)."""
    named = {t.name: t.pattern.to_regexp() for t in terminals().terminals if not t.name.startswith("__")}
    # every word the lexer could read as something other than a WORD: keywords, float64, inf, ... -- but 'keys'
    # (rule_lines: the writer writes it bare)
    others = tuple(t.pattern.to_regexp() for t in terminals().terminals
                   if t.name not in ("WORD", "COMMENT", "_NL", "KEYS") and not t.name.startswith("__IGNORE"))
    return Terminals(named, others)


@v_args(inline=True)
class RulesToModel(Transformer):
    """Turns the parse tree into the document of rule_doc (the fast reader builds the same one).
    Method names are the grammar's rule names."""

    # -- atoms -----------------------------------------------------------------------------
    def name(self, token):
        return doc.name(token)

    combined = name

    def string(self, token):
        return doc.string(token)

    def string_set(self, *tokens):
        return [doc.string(t) for t in tokens if t is not None]

    def number(self, token):
        return doc.number(token, token.line, token.column)

    def number_list(self, *numbers):
        return [n for n in numbers if n is not None]

    def format(self, version):
        doc.format_version(version, version.line, version.column)

    # -- header ----------------------------------------------------------------------------
    def numeric_feature(self, name, low, high):
        return doc.numeric_feature(name, None if low is None else [low, high])

    def nominal_feature(self, name, categories, codes):
        return doc.nominal_feature(name, categories, None if codes is None else str(codes))

    def features(self, *features):
        return list(features)

    def classification_target(self, name, classes):
        return doc.classification_target(name, classes)

    def regression_target(self, name):
        return doc.regression_target(name)

    def strict(self):
        return True

    def numbers(self, cast, tolerance, strict, zero_band):
        return doc.numbers(str(cast), tolerance, bool(strict), zero_band)

    def single(self):
        return {"kind": "single"}

    def average(self):
        return {"kind": "average"}

    def added_last(self):
        return True

    def sum(self, init, added_last, scale):
        return {"kind": "sum", "init": init, "init_last": bool(added_last), "scale": scale}

    def link(self, link, scale):
        return {"link": str(link), "link_scale": scale}

    def combine(self, kind, divisor, link, precision, decide):
        return doc.combine(**kind, divisor=divisor, **(link or {}), precision=_text(precision), decide=_text(decide))

    # -- rules (kept as written, checked later) -----------------------------------------------
    def at_most(self, x, t):
        return doc.at_most(x, t)

    def above(self, x, t):
        return doc.above(x, t)

    def between(self, low, x, high):
        return doc.between(low, x, high)

    def one_of(self, x, values):
        return doc.one_of(x, values)

    def weight(self, weight):
        return weight

    def as_missing(self, weight):
        return doc.absent(doc.factor(weight), None)

    def missing_not_unknown(self, weight):
        return doc.absent(doc.factor(weight), 0.0)

    def missing_or_unknown(self, missing_weight, unknown_weight):
        return doc.absent(doc.factor(missing_weight), doc.factor(unknown_weight))

    def only_unknown(self, weight):
        return doc.absent(0.0, doc.factor(weight))

    def is_absent(self, x, factors):
        return doc.is_absent(x, factors)

    def or_absent(self, test, factors):
        return doc.or_absent(test, factors)

    def equals(self, x, value):
        return doc.one_of(x, (value,))

    def tuple_test(self, *places):
        return doc.tuple_test(places)

    def in_keys(self, test, keys):
        return doc.tuple_condition(test, TUPLE, _whole(keys))

    def not_in_keys(self, test, keys):
        return doc.tuple_condition(test, NOT_TUPLE, _whole(keys))

    def key(self, *places):
        return list(places)

    def key_missing(self):
        return None

    def key_true(self):
        return 0

    def key_false(self):
        return 1

    def keyset(self, number, *keys):
        return doc.keyset(_whole(number), number.line, [key for key in keys if key is not None])

    def rule(self, number, *parts):
        *conditions, outcome = parts
        return doc.rule(number.line, _whole(number), tuple(conditions), outcome)

    def always_rule(self, number, outcome):
        return self.rule(number, outcome)

    def default(self, outcome):
        return outcome

    def rules(self, *items):
        return list(items[:-1]), items[-1]  # (the rules, the default's outcome)

    # -- nodes -----------------------------------------------------------------------------
    def route_stop(self):
        return doc.route_stop()

    def route_child(self, child):
        return doc.route_child(_whole(child))

    def route_weights(self, weights):
        return doc.route_weights(weights)

    def leaf(self):
        return None

    def unknown(self, child):
        return _whole(child)

    def threshold_split(self, x, t, left, right, route):
        return doc.threshold_split(x, t), [_whole(left), _whole(right)], route

    def subset_split(self, x, values, left, right, route):
        return doc.subset_split(x, values), [_whole(left), _whole(right)], route

    def tuple_split(self, test, keys, left, right, route):
        return doc.tuple_split(test, _whole(keys)), [_whole(left), _whole(right)], route

    def branch(self, value, child):
        return value, _whole(child)

    def multiway_split(self, x, *parts):
        *branches, route = parts
        return doc.multiway_split(x, [v for v, _ in branches]), [c for _, c in branches], route

    def label_value(self, values):
        return values

    def linear(self, const, *terms):
        return doc.linear(const, terms[0::2], terms[1::2])

    def linear_outcome(self, const, *parts):
        *terms, plain = parts
        return doc.linear_outcome(const, terms[0::2], terms[1::2], plain)

    def node(self, number, body, unknown, value, label_value, n, counts, linear):
        split, children, route = body or (None, None, None)
        return doc.node(_whole(number), number.line, number.column, value, n, counts, split, children, route,
                        unknown, label_value, linear)

    def nodes(self, *nodes):
        return list(nodes)

    def tree(self, number, output, weight, rules, nodes):
        return doc.tree(number.line, _whole(number), None if output is None else _whole(output), weight, *rules[:1],
                        nodes, rules[1])

    def start(self, _format, features, target, numbers, combine, *keysets_and_trees):
        keysets = [item for item in keysets_and_trees if "keys" in item]
        return doc.document(features, target, numbers, combine, list(keysets_and_trees[len(keysets):]), keysets)


def _text(token) -> str | None:
    return None if token is None else str(token)


def _whole(token) -> int:
    return doc.whole(token, token.line, token.column)


def read_with_grammar(text: str, source: str) -> dict:
    try:
        return parser().parse(text)
    except UnexpectedInput as err:
        message, line, column = describe(err, text)
        raise TreegenError(message, source, line, column) from None
    except TreegenError as err:
        raise err.at(source) from None


def describe(err: UnexpectedInput, text: str) -> tuple[str, int, int | None]:
    """What is wrong, in a user's words, and where: (message, line, column)."""
    if isinstance(err, UnexpectedCharacters):
        if text[err.pos_in_stream] == '"':  # a well-formed string is a token: this one is not
            offset, message = string_problem(text, err.pos_in_stream)
            return message, err.line, err.column + offset
        return f"unexpected character {text[err.pos_in_stream]!r}", err.line, err.column
    if isinstance(err, UnexpectedToken):
        misspelt = _misspelt_keyword_before(err)
        if misspelt is not None:
            return misspelt
        found = TERMINAL_TEXT[err.token.type] if err.token.type in ("$END", "_NL") else repr(str(err.token))
        # err.expected is the lookahead of an LALR state, which may serve many places ('1.7.5' after a threshold
        # listed ')', '*', ',', '<', '?'... and cut 'and', 'then'): what the parser takes at this place is accepts()
        taken = err.interactive_parser.accepts() if err.interactive_parser is not None else err.expected
        expected = sorted(_terminal_text(name) for name in taken)
        meant = _meant(err.token, taken)
        message = (f"expected {' or '.join(meant)}, found {found}" if meant
                   else f"unexpected {found}; expected one of: {', '.join(expected[:8])}")
        if err.token.type == "$END":  # lark places it at the last token
            return message, text.count("\n"), None
        return message, err.line, err.column
    return "malformed rule text", err.line, err.column


def _meant(token, expected) -> list[str]:
    """The keywords a word the parser refuses is a misspelling of ('if' for 'iff', 'weights' for 'weight',
    'float32' for 'flaot32'), of the terminals it expected there (by name), quoted; none when it is like none."""
    word = str(token)
    if not word.isidentifier():
        return []
    keywords = sorted({keyword for name in expected for keyword in _keywords(name)})
    return [repr(keyword) for keyword in close_names(word, keywords)]


_WORDS = re.compile(r"\(\?:(\w+(?:\|\w+)*)\)")  # a terminal of a few words: CAST is (?:float64|float32)


def _keywords(name: str) -> list[str]:
    """The words a terminal is: a keyword's one, each word of a terminal of a few; none for another."""
    try:
        pattern = terminals().get_terminal(name).pattern
    except KeyError:  # $END
        return []
    if pattern.type == "str":
        return [pattern.value] if pattern.value.isidentifier() else []
    words = _WORDS.fullmatch(pattern.value)
    return words.group(1).split("|") if words else []


def _misspelt_keyword_before(err: UnexpectedToken) -> tuple[str, int, int] | None:
    """Where a keyword and a name may both stand (a split or 'leaf'; a feature or 'target'), a misspelt
    keyword is read as a name, and the parser refuses only the token after it, which no name takes. The
    mistake is that word when it is no feature read so far and is close to one of the keywords the parser
    took there: (message, line, column) at the word; else None."""
    state = err.interactive_parser.parser_state if err.interactive_parser is not None else None
    word = state.value_stack[-1] if state is not None and state.value_stack else None
    if not (isinstance(word, Token) and word.type == "WORD") or str(word) in _features_read(state.value_stack):
        return None
    before = state.parse_conf.states[state.state_stack[-2]]  # the state in which the word was taken
    meant = _meant(word, [name for name in before if name.isupper()])
    if not meant:
        return None
    return f"expected {' or '.join(meant)} or a feature, found {str(word)!r}", word.line, word.column


def _features_read(values: list) -> set[str]:
    """The names of the features on the parser's stack of values: the features section once it is read,
    its features so far while it is (lark holds the repetition in a Tree until the section ends)."""
    names = set()
    for value in values:
        items = value.children if isinstance(value, Tree) else value if isinstance(value, list) else [value]
        names.update(item["name"] for item in items if doc.is_feature(item))
    return names


JSON_ESCAPES = '"\\/bfnrt'


def string_problem(text: str, start: int) -> tuple[int, str]:
    """Why the quoted string opening at ``start`` is not the grammar's STRING (a JSON string that is
    Unicode text): (offset of the problem from the opening quote, message)."""
    i = start + 1
    while i < len(text) and text[i] not in '"\n':
        c = text[i]
        if c == "\\":
            escape = text[i + 1:i + 2]
            if escape == "u":
                problem = _unicode_escape_problem(text, i)
                if problem:
                    return i - start, problem
                i += 12 if 0xD800 <= int(text[i + 2:i + 6], 16) < 0xDC00 else 6
                continue
            if escape in ("", "\n"):
                break
            if escape not in JSON_ESCAPES:
                shown = escape if escape.isprintable() else f"U+{ord(escape):04X}"
                return i - start, (f"invalid escape \\{shown} in a quoted string; the escapes are "
                                   "\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
            i += 2
            continue
        if c < " ":
            shown = {"\t": "a tab", "\r": "a carriage return"}.get(c, f"control character U+{ord(c):04X}")
            return i - start, f"{shown} in a quoted string; write it as {json.dumps(c)[1:-1]}"
        if "\ud800" <= c <= "\udfff":
            return i - start, f"a lone surrogate U+{ord(c):04X} in a quoted string"
        i += 1
    if i < len(text) and text[i] == '"':
        return 0, "malformed quoted string"  # not reached: the grammar's STRING takes every other string
    return 0, "a quoted string that does not end on its line"


def _unicode_escape_problem(text: str, i: int) -> str | None:
    """What is wrong with the \\u escape at ``i``, if anything: four hex digits, no lone surrogate."""
    digits = text[i + 2:i + 6]
    if len(digits) < 4 or any(d not in "0123456789abcdefABCDEF" for d in digits):
        return "\\u needs four hexadecimal digits in a quoted string"
    code = int(digits, 16)
    if 0xDC00 <= code < 0xE000:
        return f"\\u{digits} is a lone surrogate, not a character (it may only follow \\ud800-\\udbff)"
    if 0xD800 <= code < 0xDC00:
        low = text[i + 6:i + 12]
        if not (len(low) == 6 and low[:2] == "\\u" and all(d in "0123456789abcdefABCDEF" for d in low[2:])
                and 0xDC00 <= int(low[2:], 16) < 0xE000):
            return f"\\u{digits} is a lone surrogate, not a character (a pair needs \\udc00-\\udfff after it)"
    return None


TERMINAL_TEXT = {"_NL": "end of line", "$END": "end of file", "INT": "a whole number", "NUMBER": "a number",
                 "STRING": "a quoted string", "WORD": "a name", "CAST": "float64 or float32",
                 "CODES": "integral, truncated or nonnegative",
                 "LINK": "identity, sigmoid, softmax, exp, exp_double, sign_square or step",
                 "DECISION": "argmax, weka, raw_nonnegative, raw_positive or argmax_raw"}  # the grammar's names, as a user reads them


def _terminal_text(name: str) -> str:
    """'features' for a keyword, a description for a pattern (never a grammar name such as _NL)."""
    if name in TERMINAL_TEXT:
        return TERMINAL_TEXT[name]
    try:
        pattern = terminals().get_terminal(name).pattern
    except KeyError:
        return name.strip("_").lower()
    return repr(pattern.value) if pattern.type == "str" else name.strip("_").lower()

