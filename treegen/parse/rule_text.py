"""Reading rule text back into a model (grammar: rule_text.lark beside this file).

The ``nodes`` section rebuilds each tree exactly; the ``rules`` section, written for people, is then
checked against the rules that the rebuilt tree lowers to, so an edit that would make the two
disagree is reported at its line instead of being silently ignored.

The grammar decides what rule text is. Text laid out exactly as the writer lays it out is read by a
faster reader of that layout (rule_lines.py), which accepts nothing the grammar refuses and builds
the same document (rule_doc.py); anything else, and every mistake, is read and reported by the grammar
(rule_grammar.py, which imports Lark: only then).
"""
from __future__ import annotations

import json
import math
import re
from itertools import chain, islice, repeat
from operator import itemgetter

from ..collector import collector_paused
from ..describe import key_text, leaves_show_labels, quote
from ..errors import TreegenError, did_you_mean, read_text
from ..lower import INTERVAL, NOT_TUPLE, SET, TUPLE, lower
from ..model import Model, Node, leaf_class, listed
from ..modelio import FORMAT, VERSION, model_from_dict
from ..rule_words import RuleWriter, part_factors
from . import rule_doc as doc
from .rule_lines import read_lines


def parse(text: str, source: str = "<rules>") -> Model:
    """Read rule text into a model that predicts exactly what the written model predicted.

    Text in the layout the writer writes is read by a fast reader of that layout (rule_lines), and
    when its rules are word for word the writer's for its nodes (an export, unedited) they are
    compared as lines rather than read; any other text is read by the Lark grammar, which decides
    what rule text is and says what is wrong with it.
    """
    if not text.endswith("\n"):  # every statement ends a line, the last one too: an editor may not add it
        text += "\n"
    with collector_paused():
        model, as_written = _as_written(text, source)
        if not as_written:
            document = read_lines(text) or _read_with_grammar(text, source)
            if model is None:  # (else its nodes, which every reader reads alike, built it already)
                model = _build(document, text, source)
            _check_rules(model, document, text, source)
            _check_defaults(model, document, text, source)
    return model


def _as_written(text: str, source: str) -> tuple[Model | None, bool]:
    """The model of text in the writer's layout, built from its nodes (None for another layout, or nodes that
    do not make one), and whether its rules are, line for line, those the writer writes for them (an export,
    unedited): its rules compared as text, not read. Any other text is then read whole (and what is wrong with
    it said)."""
    document = read_lines(text, rules_as_written=True)
    if document is None:
        return None, False
    try:
        model = _build(document, text, source)
    except TreegenError:
        return None, False
    writer = RuleWriter(model)
    for tree, tree_doc, tree_rules in zip(model.trees, document["trees"], lower(model)):
        if tree_doc["rules"] != writer.rule_lines(tree, tree_rules.rules):
            return model, False
    _check_defaults(model, document, text, source)
    return model, True

def _read_with_grammar(text: str, source: str) -> dict:
    from .rule_grammar import read_with_grammar  # (Lark: for text in another layout only)
    return read_with_grammar(text, source)


# -- meta: the header's `# key: value` comments ----------------------------------------------------

_JSON_NUMBER = re.compile(r"-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?")  # as emit/rule_text.py (meta_line) writes one
_COMMENT_LINE = re.compile(r"[\t ]*# ?(.*?)\r?")
_BLANK_LINE = re.compile(r"[\t ]*(#.*)?\r?")


def header_meta(text: str) -> dict:
    """The model's meta from the comment lines between the format line and `features`, as the writer
    writes them (emit/rule_text.py, meta_line): `key: value`, a value that reads as a JSON number
    being that number; or, where that would not read back, key and value in JSON. The escapes of a
    quoted string undone first. Other comments there are a person's and are left alone."""
    meta = {}
    lines = _lines(text)
    for line in lines:  # up to the first statement, the format line
        if not _BLANK_LINE.fullmatch(line):
            break
    for line in lines:
        comment = _COMMENT_LINE.fullmatch(line)
        if comment is None:
            if _BLANK_LINE.fullmatch(line):
                continue
            break
        entry = meta_entry(comment.group(1))
        if entry is not None:
            meta[entry[0]] = entry[1]
    return meta


def meta_entry(written: str):
    """(key, value) from one header comment, or None if it is not one the writer writes."""
    try:
        text = json.loads('"' + written + '"')
    except ValueError:
        return None
    if text.startswith('"'):
        try:
            key, end = json.JSONDecoder().raw_decode(text)
            value = json.loads(text[end + 2:]) if text[end:end + 2] == ": " else None
        except ValueError:
            return None
        return (key, value) if isinstance(value, (str, int, float)) else None
    key, colon, value = text.partition(": ")
    if not colon:
        return None
    if _JSON_NUMBER.fullmatch(value):
        try:
            return key, json.loads(value)
        except ValueError:  # an integer of over 4,300 digits: not one the writer writes
            return None
    return key, value


# -- from the document to the model ---------------------------------------------------------------

_ID = itemgetter("id")


def _build(document: dict, text: str, source: str) -> Model:
    _check_features_unique(document["features"], text, source)
    _check_numbered(document["trees"], "tree", "the trees", text, source)
    names = {f["name"]: i for i, f in enumerate(document["features"])}
    categories = {f["name"]: set(f["categories"]) for f in document["features"] if f["kind"] == "nominal"}
    tuples = _TupleSplits(names, categories, document["keys"], text, source)
    trees = []
    for tree in document["trees"]:
        nodes = sorted(tree["nodes"], key=_ID)
        for position, node in enumerate(nodes):  # (each node's field looked up once: most of a big text's nodes)
            if node["id"] != position:
                raise TreegenError(f"node ids must count 0, 1, 2, ... (expected node {position})", source, node["line"])
            split, linear = node.get("split"), node.get("linear")
            if split is not None and split["op"] == TUPLE:
                tuples.to_model_split(split, node["line"])
            elif split is not None:
                _check_names(text, source, node["line"], names, categories, split["feature"], split.get("values", ()))
                if split["op"] == "<=" and math.isnan(split["threshold"]):
                    raise TreegenError("a threshold is a number, not nan (no number is at most nan)", source,
                                       node["line"], _column_after(text, node["line"], "<="))
                split["feature"] = names[split["feature"]]
            for term in () if linear is None else linear["terms"]:
                _check_names(text, source, node["line"], names, categories, term[0])
                term[0] = names[term[0]]
        _check_children_listed(nodes, tree is document["trees"][-1], source)
        tree_doc = {"output": tree["output"], "nodes": nodes}
        if "weight" in tree:
            tree_doc["weight"] = tree["weight"]
        trees.append(tree_doc)
    model_doc = {"format": FORMAT, "version": VERSION, "features": document["features"],
                 "target": document["target"], "numeric": document["numbers"], "combine": document["combine"],
                 "trees": trees, "meta": header_meta(text)}
    if tuples.used:  # each keys line once, which the splits name by its place (read once, shared by them)
        model_doc["tuple_keys"] = [document["keys"][number]["keys"] for number in tuples.used]
    try:  # its nodes as lists: rule text is lowered, compared and written node by node
        return listed(model_from_dict(model_doc, source))
    except TreegenError as err:
        raise TreegenError(err.message, source, _line_of(err.message, document, text)) from None


class _TupleSplits:
    """A node's tuple split as the model has it: features by number, parts splits, the keys of its keys line --
    what it names checked first, each mistake said at its place (a keys line checked once for each test)."""

    def __init__(self, names: dict[str, int], categories: dict[str, set], keysets: dict[int, dict], text: str,
                 source: str):
        self.names, self.categories, self.keysets, self.text, self.source = names, categories, keysets, text, source
        self.checked: set[tuple] = set()
        self.used: dict[int, int] = {}  # a keys line's number: its place among those the splits name

    def fail(self, message: str, line: int, column: int | None = None):
        raise TreegenError(message, self.source, line, column)

    def to_model_split(self, split: dict, line: int) -> None:
        """Turn a node's tuple split, as its line reads, into the model's, in place: names into feature numbers,
        conditions into parts, its keys line into the number of the model's set."""
        names, categories = self.names, self.categories
        for feature in split["features"]:
            _check_names(self.text, self.source, line, names, categories, feature)
            if feature not in categories:
                self.fail(f"a test of categories combined names the numeric feature {feature!r} before its "
                          "conditions; a number is tested by a condition (x <= t)", line, self._column(line, feature))
        parts = [self.part(condition, line) for condition in split["parts"]]
        keyset = self.keysets.get(split["tuples"])
        if keyset is None:
            tokens = _line_tokens(self.text, line)
            column = next((b.column for a, b in zip(tokens, tokens[1:]) if a == "keys" and b == str(split["tuples"])),
                          None)
            defined = ", ".join(map(str, sorted(self.keysets))) or "none"
            self.fail(f"no keys line numbered {split['tuples']} (the keys lines: {defined})", line, column)
        shape = (split["tuples"], tuple(split["features"]), len(parts))
        if shape not in self.checked:
            self.check_keys(keyset, split["features"], split["parts"], line)
            self.checked.add(shape)
        split.update(feature=names[split["features"][0]], features=[names[f] for f in split["features"]],
                     parts=parts, tuples=self.used.setdefault(split["tuples"], len(self.used)))

    def part(self, condition: tuple, line: int) -> dict:
        feature = condition[0]
        _check_names(self.text, self.source, line, self.names, self.categories, feature, condition[4])
        try:
            part = doc.part_split(condition)
        except ValueError as err:
            self.fail(str(err), line, self._column(line, feature))
        if (part["op"] == "<=") == (feature in self.categories):
            kind = "nominal" if feature in self.categories else "numeric"
            self.fail(f"{part['op']!r} does not fit the {kind} feature {feature!r}", line, self._column(line, feature))
        part["feature"] = self.names[feature]
        return part

    def check_keys(self, keyset: dict, features: list[str], parts: list[tuple], used_at: int) -> None:
        """Each key of ``keyset`` fits the test on line ``used_at``: a category of each feature (or missing), then
        true or false for each part."""
        width = len(features) + len(parts)
        for i, key in enumerate(keyset["keys"]):
            problem = None
            if len(key) != width:
                problem = (f"has {len(key)} places; the test on line {used_at} takes {len(features)} categories "
                           f"then {len(parts)} answers")
            for place, (value, feature) in enumerate(zip(key, features)):
                if problem is None and type(value) is int:
                    problem = f"place {place + 1} holds {key_text((value,), quote)[1:-1]} where {feature!r} needs a category"
                elif problem is None and value is not None and value not in self.categories[feature]:
                    problem = (f"place {place + 1} holds unknown category {value!r} of feature {feature!r}"
                               + did_you_mean([value], self.categories[feature]))
            for place in range(len(features), len(key)):
                if problem is None and type(key[place]) is not int:
                    problem = f"place {place + 1} holds {key_text(key[place:place + 1], quote)[1:-1]}, not true or false"
            if problem is not None:
                tokens = _line_tokens(self.text, keyset["line"])
                opens = [token.column for token in tokens if token == "("]
                self.fail(f"keys {keyset['number']}: the key {key_text(key, quote)} {problem}", keyset["line"],
                          opens[i] if i < len(opens) else None)

    def _column(self, line: int, feature: str) -> int | None:
        return _name_column(_line_tokens(self.text, line), feature)


# -- names the model does not know: said at their place, with the known names they are close to -------

def _check_names(text: str, source: str, line: int, features, categories: dict[str, set], feature: str,
                 values=(), rule: str = "") -> None:
    """``feature`` is one of ``features`` and ``values`` (those a condition or split on it names) are
    categories of it, if it is nominal (``categories``: each nominal feature's): else an error at the
    name on line ``line``, preceded by ``rule`` ('rule 3: ')."""
    if feature not in features:
        tokens = _line_tokens(text, line)
        raise TreegenError(f"{rule}unknown feature {feature!r}" + did_you_mean([feature], features), source, line,
                           _name_column(tokens, feature))
    known = categories.get(feature)
    unknown = [value for value in values if value not in known] if known is not None else ()
    if unknown:
        tokens = _line_tokens(text, line)
        raise TreegenError(f"{rule}unknown category {unknown[0]!r} of feature {feature!r}"
                           + did_you_mean(unknown[:1], known), source, line,
                           _string_column(tokens, unknown[0], _name_column(tokens, feature) or 0))


def _check_label(model: Model, label, text: str, source: str, line: int, rule: str = "") -> None:
    """A class label that a rule or a default says is one of the model's classes, else an error at it."""
    classes = model.target.classes
    if model.target.is_classification and isinstance(label, str) and label not in classes:
        tokens = _line_tokens(text, line)  # the label ends the statement
        column = tokens[-1].column if tokens and tokens[-1].type == "STRING" else None
        raise TreegenError(f"{rule}unknown class {label!r}" + did_you_mean([label], classes), source, line, column)


def _line_tokens(text: str, line: int) -> list:
    """The tokens of a line of rule text (every statement is one line: lark Tokens, str with a type, line and
    column), to find a name's column in; none if the line does not lex alone."""
    from lark.exceptions import UnexpectedInput  # (an error's column: Lark then, not for a text read well)
    from .rule_grammar import terminals
    try:
        return list(terminals().lex(text.split("\n")[line - 1].rstrip("\r")))
    except UnexpectedInput:
        return []


_AFTER_NAME = {"<=", ">", "=", "in", "is", "==", ",", ")"}  # what follows a feature's name in a test, a split, a tuple


def _name_column(tokens: list, feature: str) -> int | None:
    """The column of the token that names ``feature`` (before a test's operator, or after a linear term's '*')."""
    for i, token in enumerate(tokens):
        if token.type in ("WORD", "STRING") and doc.name(token) == feature and (
                i + 1 < len(tokens) and tokens[i + 1] in _AFTER_NAME or i > 0 and tokens[i - 1] == "*"):
            return token.column
    return None


def _string_column(tokens: list, value: str, after: int) -> int | None:
    """The column of the first quoted string ``value`` past column ``after``."""
    return next((t.column for t in tokens if t.type == "STRING" and t.column > after and doc.string(t) == value), None)


def _check_children_listed(nodes: list[dict], last: bool, source: str) -> None:
    """Every child a node names is one of its tree's nodes (ids 0, 1, 2, ... as listed). One that is not
    is where a text cut short ends (else where the next tree begins): said so, at the first node missing,
    rather than the model's check of a tree's shape, which takes it for a child not after its parent."""
    if max(chain.from_iterable(map(dict.get, nodes, repeat("children"), repeat(()))), default=0) < len(nodes):
        return  # (at C speed: the usual answer)
    beyond = [(child, node) for node in nodes for child in node.get("children", ()) if child >= len(nodes)]
    if beyond:
        child, node = min(beyond, key=lambda pair: pair[0])
        where = "the text ends" if last else "the tree's nodes end"
        raise TreegenError(f"{where} before node {child}, which node {node['id']} refers to", source, node["line"])


def _check_features_unique(features: list[dict], text: str, source: str) -> None:
    """Each feature is declared once: before a node is read, which would find the name's other declaration (its
    categories, or a name the duplicate took the place of reported as unknown)."""
    lines, first = _statement_lines(text, 2 + len(features)), {}
    for i, feature in enumerate(features):
        line = lines[2 + i]  # the format line, "features", then one statement a feature
        if first.setdefault(feature["name"], line) != line:
            tokens = _line_tokens(text, line)
            raise TreegenError(f"feature {feature['name']!r} is declared twice (first on line "
                               f"{first[feature['name']]})", source, line, tokens[0].column if tokens else None)


def _check_numbered(items: list[dict], word: str, what: str, text: str, source: str) -> None:
    """The trees (or a tree's rules) are numbered 1, 2, 3, ... in the order written, as the writer numbers them: a
    number out of place is a tree or rule lost, repeated or moved by an edit. Said at the number."""
    lines = {}
    for position, item in enumerate(items, 1):
        number, line = item["number"], item["line"]
        if number != position:
            column = _column_after(text, line, word)
            where = f"{word} {number} is given twice (first on line {lines[number]})" if number in lines \
                else f"expected {word} {position}, found {word} {number}"
            raise TreegenError(f"{where}: {what} are numbered 1, 2, 3, ... in the order written", source, line, column)
        lines[number] = line


def _column_after(text: str, line: int, word: str) -> int | None:
    """The column of the token after the first ``word`` on line ``line`` (a number after 'tree', after '<=')."""
    tokens = _line_tokens(text, line)
    return next((b.column for a, b in zip(tokens, tokens[1:]) if a == word), None)


_MODEL_PATH = re.compile(r"features\[(?P<feature>\d+)\]|(?P<header>target|numeric|combine)"
                         r"|trees\[(?P<tree>\d+)\](?:\.nodes\[(?P<node>\d+)\])?")


def _line_of(message: str, document: dict, text: str) -> int | None:
    """The line of what a message of modelio's (``trees[0].nodes[3].value: ...``) is about."""
    match = _MODEL_PATH.match(message)
    if not match:
        return None
    if match.group("tree") is not None:
        tree = document["trees"][int(match.group("tree"))]
        return tree["nodes"][int(match.group("node"))]["line"] if match.group("node") else tree["line"]
    # The header: format, features, one line per feature, target, numbers, combine; one statement a line.
    features = len(document["features"])
    statement = (2 + int(match.group("feature")) if match.group("feature") is not None
                 else {"target": 2, "numeric": 3, "combine": 4}[match.group("header")] + features)
    return _statement_lines(text, statement + 1)[statement]


def _statement_lines(text: str, count: int | None = None) -> list[int]:
    """The line number of every statement (a line that is not blank or only a comment); of the first ``count``
    only, if given (those of the header: not a look at every line of a big text, 10 ms at 9,000 leaves)."""
    numbers = (number for number, line in enumerate(_lines(text), 1) if not _BLANK_LINE.fullmatch(line))
    return list(islice(numbers, count))


def _lines(text: str):
    """``text.split("\\n")``, a line at a time: the header's lines without splitting a whole big text."""
    start = 0
    while (end := text.find("\n", start)) >= 0:
        yield text[start:end]
        start = end + 1
    yield text[start:]


def _check_rules(model: Model, document: dict, text: str, source: str) -> None:
    """Each written rule is the rule its tree lowers to (conditions compared as rule_doc writes them)."""
    names = [f.name for f in model.features]
    categories = {f.name: set(f.categories) for f in model.features if not f.is_numeric}
    keys = _KeysCompared(model, document["keys"])
    for tree, tree_doc, tree_rules in zip(model.trees, document["trees"], lower(model)):
        written, expected = tree_doc["rules"], tree_rules.rules
        _check_numbered(written, "rule", "a tree's rules", text, source)
        for rule_doc, rule in zip(written, expected):
            conditions = tuple((names[c.feature], c.kind, c.low, c.high, c.values, c.if_missing,
                                doc.unknown_apart(c.if_missing, c.unknown_factor)) if c.split is None
                               else keys.expected(c) for c in rule.conditions)
            outcomes = _outcomes(model, tree.nodes[rule.node])
            if keys.written(rule_doc["conditions"]) != conditions or rule_doc["outcome"] not in outcomes:
                _check_names_of_rule(model, rule_doc, names, categories, text, source, document["keys"])
                raise TreegenError(f"rule {rule_doc['number']} does not match the nodes section "
                                   "(the rules are derived from the nodes: edit the nodes, or export again)",
                                   source, rule_doc["line"])
        if len(written) != len(expected):
            raise TreegenError(f"the nodes section gives {len(expected)} rules, the text lists {len(written)}",
                               source, tree_doc["line"])


class _KeysCompared:
    """A rule's test of categories combined as the reader makes it of the text, and as the one its nodes lower to
    would be written: the same keys lines, however numbered, compare equal (as the first line that lists them)."""

    def __init__(self, model: Model, keysets: dict[int, dict]):
        self.model, self.names = model, [f.name for f in model.features]
        first: dict[frozenset, int] = {}
        self.canonical = {number: first.setdefault(frozenset(map(tuple, keysets[number]["keys"])), number)
                          for number in sorted(keysets)}
        self.first = first

    def written(self, conditions: tuple) -> tuple:
        if not self.canonical:
            return conditions
        return tuple(c if c[1] not in (TUPLE, NOT_TUPLE) else
                     c[:4] + ((*c[4][:2], self.canonical.get(c[4][2])),) + c[5:] for c in conditions)

    def expected(self, c) -> tuple:
        split, names = c.split, self.names
        parts = tuple((names[p.feature], INTERVAL, -math.inf, self.model.numeric.effective_threshold(p.threshold), (),
                       *_part_factors(p)) if p.op == "<=" else
                      (names[p.feature], SET, -math.inf, math.inf, tuple(p.values), *_part_factors(p))
                      for p in split.parts)
        test = (tuple(names[f] for f in split.features), parts, self.first.get(split.tuples))
        return (names[c.feature], c.kind, -math.inf, math.inf, test, 0.0, None)


def _part_factors(part) -> tuple[float, float | None]:
    """(if_missing, if_unknown) of a tuple split's part as a condition of the text says them."""
    if_missing, if_unknown = part_factors(part)
    return if_missing, doc.unknown_apart(if_missing, if_unknown)


def _check_names_of_rule(model: Model, rule_doc: dict, names: list[str], categories: dict[str, set], text: str,
                         source: str, keysets: dict) -> None:
    """The features, categories and class a rule names are the model's, else an error at the first unknown."""
    line, rule = rule_doc["line"], f"rule {rule_doc['number']}: "
    for feature, kind, _, _, values, *_ in rule_doc["conditions"]:
        if kind in (TUPLE, NOT_TUPLE):
            _check_tuple_names(values, names, categories, text, source, line, rule, keysets)
            continue
        _check_names(text, source, line, names, categories, feature, values if kind == SET else (), rule)
    outcome = rule_doc["outcome"]
    if isinstance(outcome, tuple):  # a linear leaf's sum: doc.linear_outcome
        for _, feature in outcome[2]:
            _check_names(text, source, line, names, categories, feature, (), rule)
    _check_label(model, outcome, text, source, line, rule)


def _check_tuple_names(test: tuple, names: list[str], categories: dict[str, set], text: str, source: str, line: int,
                       rule: str, keysets: dict) -> None:
    """The features, categories and keys line a rule's test of categories combined names are the model's."""
    features, parts, number = test
    for feature in features:
        _check_names(text, source, line, names, categories, feature, (), rule)
    for part in parts:
        _check_names(text, source, line, names, categories, part[0], part[4], rule)
    if number not in keysets:
        tokens = _line_tokens(text, line)
        column = next((b.column for a, b in zip(tokens, tokens[1:]) if a == "keys" and b == str(number)), None)
        raise TreegenError(f"{rule}no keys line numbered {number}", source, line, column)


def _check_defaults(model: Model, document: dict, text: str, source: str) -> None:
    """Each tree's ``default:`` says what the writer writes there, its root's outcome (what a row
    that meets no rule's conditions would be told): read and not used, it must not say otherwise."""
    for tree, tree_doc in zip(model.trees, document["trees"]):
        root = tree.nodes[0]  # its value as the writer writes it, a linear root's too (the rules say its sum)
        if tree_doc["default"] not in _outcomes(model, root if root.linear is None else Node(root.value)):
            statements = _statement_lines(text)  # the default, "nodes", then the first node's statement
            line = statements[statements.index(min(node["line"] for node in tree_doc["nodes"])) - 2]
            _check_label(model, tree_doc["default"], text, source, line)
            raise TreegenError("the default does not match the nodes section (it is what the root, node 0, "
                               "predicts: edit the nodes, or export again)", source, line)


def _outcomes(model: Model, node: Node) -> tuple:
    """What a rule ending at ``node`` may say it predicts: :func:`_outcome`; for a boosted classifier's
    leaf also the class its value picks, as the writer wrote such rules before they said the score."""
    if model.target.is_classification and not leaves_show_labels(model):
        return _outcome(model, node), model.target.classes[leaf_class(model.combine, node.deciding_value)]
    return (_outcome(model, node),)


def _outcome(model: Model, node: Node):
    """What a rule ending at ``node`` says it predicts, as the writer's :meth:`RuleWriter.outcome`: the
    class its leaf labels on its own (as :func:`treegen.model.leaf_class`) in a single tree or forest;
    else its value (a number, or a list where a boosted tree adds to every output), or a linear leaf's
    sum (:func:`treegen.parse.rule_doc.linear_outcome`) with its plain value."""
    if leaves_show_labels(model):
        return model.target.classes[leaf_class(model.combine, node.deciding_value)]
    linear = node.linear
    if linear is not None and not linear.terms:
        return linear.const
    if linear is not None:
        names = [f.name for f in model.features]
        return doc.linear_outcome(linear.const, [c for _, c in linear.terms], [names[f] for f, _ in linear.terms],
                                  node.value[0])
    return node.value[0] if len(node.value) == 1 else list(node.value)


def load(path: str) -> Model:
    return parse(read_text(path, "rules"), path)
