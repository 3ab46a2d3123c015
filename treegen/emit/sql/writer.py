"""What every way of writing a tree in SQL shares: the conditions (a split's or a rule's test, with the
missing value tested where the model sends it), the trees combined as the model says, the link, the
label, and the query whose derived tables compute each shared value once.

Missing is NULL, NaN where the engine stores it, a number inside the feature's missing interval, and
a category the feature does not know (unless the split sends unknown categories a way of their own). A
feature of integer codes (LightGBM's, XGBoost's, HistGradientBoosting's) reads a text that spells a number
as the category the number names (:meth:`Writer._category`); an XGBoost code as its float32 (2.99999999 is 3),
in SQLite, which has no 4-byte float, rounded in plain double arithmetic.
A ``tuple`` split (CatBoost's categorical features combined) is its key as an integer -- each combined feature's
digit, each part's child position, in mixed radix -- among the split's keys (:meth:`Writer.tuple_answer`); a query
computes each distinct split's answer once a row, a column of a derived table of its own (:meth:`Writer.with_tuples`:
the default CatBoost model's 582 splits of 176,648 keys, 2.9 MB of SQLite; inline in an expression, 15.7 MB).
Several trees are combined as the model says (:meth:`treegen.model.Model.combined`, the same operations
in the same order: average; boosted sums with tree weights, init first or last, scale and divisor, in
double or with every step rounded to float32; the links, XGBoost's float32 ones with glibc's ``expf``
written out in SQL), and the label follows the model's decision rule (a binary XGBoost's or LightGBM's: its raw
sum at or above :func:`treegen.emit.common.label_cut`, no link computed for it). A full query computes shared
values (walks, raw sums, each step of a link, class scores) once, in derived tables nested one per
step; in expression mode the same values are written inline, or an output is a scalar subquery of them, or
binds them to lambdas' variables (:meth:`Writer.item`).

Exactness: the same bits as the model in SQLite, DuckDB, PostgreSQL and MariaDB (their ``EXP`` is
glibc's); Spark's ``EXP`` is Java's, 1 to 8 ulps off glibc's on some inputs (a double link only:
float32 links use no ``EXP``), which `verify` allows within the dialect's ``exp_error``.
float32 sums are a cast to the engine's 4-byte float each step; SQLite has none: there each rounded step is a
named value rounded in plain double arithmetic where it is read (:meth:`Writer.round_step`), the steps a
``WITH`` chain, a step a tree; in an expression each output that reads them is a correlated scalar subquery of
that chain (:meth:`Writer.item`); MySQL's ``FLOAT`` stops at the largest float32 where a step overflows;
PostgreSQL's
``float4`` raises an error where a step overflows float32 or rounds a number other than 0 to 0, and
MySQL, which has no infinity, where a score overflows the doubles. In expression mode a named value is
written where it is read: ``expf`` reads its argument about ten times, so a float32 link grows the text about a
hundredfold (1.2 MB for XGBoost's 9-tree softmax fixture, beyond Spark's parser heap); where the engine takes
a correlated scalar subquery of steps (SQLite, PostgreSQL; ``Dialect.correlated_steps``), such an output
of a float32 model is one instead (57 KB), its steps written once. DuckDB reorders such a subquery's rows; it
and Spark have lambdas (``Dialect.binding``): there an output, of a float32 model or one in double (a softmax
reads every class's sum), whose text inlining would double binds each step's values to a lambda's variable, the
next step the lambda's body (:meth:`Writer.bound`; 35 KB for the example's 12.3 MB).
"""
from __future__ import annotations

import functools
import math
import re
from typing import Callable

from ... import arithmetic
from ...data import MISSING_TOKENS, reads_as_missing
from ...errors import TreegenError
from ...lower import INTERVAL, MISSING, TUPLE, Condition, Rule, Share, TreeRules, lower_tree
from ...model import (CODE_LIMIT, Codes, CombineKind, Decision, Link, Model, Node, Op, Precision, Route, Tree,
                      Feature, decide, has_label_values, number_category, numbers_past_codes, scores_nan)
from ...table import free_names
from ..common import (CodedTuples, TupleTest, category_codes, category_digits, coded_tuples, label_cut, label_decision,
                      linear_sum, node_vector, tuple_test)
from ..render import render
from . import arithmetic as sql_arithmetic
from .depth import DERIVED_TABLE, depth, sqlite_stack_holds, usual_stack
from .dialects import Dialect, integers_past_doubles

Ref = Callable[[str], str]  # the SQL for a named intermediate value
# the derived tables SQLite's parser stack holds around a step of an expression's scalar subquery (Writer.item): a
# step's column there is read with 80 entries left of a SELECT's 93, a derived table's 6 each (depth.DERIVED_TABLE)
SUBQUERY_STEP = 3
SHARED_FEATURES = 5  # a path's weight as a CASE nested over at most so many features (2^5 weights)


def _reads_as_itself(category: str, feature: Feature, cast: str) -> bool:
    """Whether a category's text names no other category, read as a number (:func:`treegen.model.number_category`):
    "3" or "a", not "03"."""
    try:
        return number_category(feature, float(category), cast) in (category, None)
    except ValueError:  # not a number
        return True


class TreeSql:
    """How one tree of the model is written: a strategy (:mod:`.oblivious`, :mod:`.nested`, :mod:`.rules`,
    :mod:`.walk`) subclasses this and says which trees it ``takes``."""

    def __init__(self, writer: Writer, index: int):
        self.w, self.d, self.index = writer, writer.d, index
        self.tree = writer.model.trees[index]
        self.exclusive = writer.exclusive[index]
        self.number: str | None = None  # the named value of the end's number, once numbered (names)

    @property
    def rules(self) -> TreeRules:
        """The tree's flat rules, lowered when a strategy first asks (a walked tree never needs them)."""
        return self.w.rules(self.index)

    @staticmethod
    def takes(writer: Writer, index: int) -> bool:
        """Whether this strategy can write tree ``index`` (the dialect's row gives the order asked)."""
        raise NotImplementedError

    def names(self) -> tuple[str, ...]:
        """The named values this tree's scores read (:meth:`Writer.define`), asked once the scores are.

        An exclusive tree whose several output components are all read (class probabilities), in a
        dialect that looks an item up by its number (``pick``), is evaluated once: the number of the
        end it reached is a named value, and each component is looked up in a list by that number
        rather than written as a CASE of its own (2x faster a row for a forest in DuckDB)."""
        d, tree = self.d, self.tree
        if self.number is None and self.exclusive and d.pick and tree.output is None and len(tree.nodes[0].value) > 1:
            self.ends = {node: k for k, node in enumerate(_ends(tree), 1)}  # node id -> its number
            self.number = f"n{self.index}"
            self.w.define(self.number, lambda ref: self.outcome(lambda n: str(self.ends[n]), ref,
                                                                (self.ends.__getitem__, "INT")), self.reads())
        return (self.number,) if self.number else self.reads()

    def reads(self) -> tuple[str, ...]:
        """The named values the tree's outcome reads (:mod:`.oblivious`: each level's answer)."""
        return ()

    def looked_up(self, text: Callable[[int], str], ref: Ref) -> str:
        """``text(node id)`` of the end reached, picked from the list of every end's by its number."""
        return self.d.pick.format(items=", ".join(text(node) for node in self.ends), index=ref(self.number))

    def outcome(self, then: Callable[[int], str], ref: Ref, numbers=None) -> str:
        """An exclusive tree as one expression giving ``then(node id)`` of the node reached;
        ``numbers``: (node id -> the number that ``then`` writes, its SQL type), for a strategy that
        looks the outcome up in an array."""
        raise NotImplementedError

    def value(self, k: int, ref: Ref) -> str:
        """Component ``k`` of the tree's output (with label values, the label sums follow the scores:
        :func:`treegen.emit.common.node_vector`)."""
        nodes, vector = self.tree.nodes, self.w.vector
        if self.number:
            return self.looked_up(lambda n: self.d.double(vector(nodes[n])[k]), ref)
        if any(node.linear is not None for node in nodes):  # (not walked: walk.py leaves linear trees alone)
            return self.outcome(lambda n: self.w.leaf_value(nodes[n]), ref)
        return self.outcome(lambda n: self.d.double(vector(nodes[n])[k]), ref, (lambda n: vector(nodes[n])[k], "DOUBLE"))

    def together(self, trees: list[TreeSql], term: Callable[[Tree, Node], float]) -> Callable[[Ref], str] | None:
        """The terms of ``trees`` (``term`` of the node each reached) as one SQL array, where the
        strategy can write them so (:mod:`.walk`: trees walked together); None: a term a tree."""
        return None

    def leaf(self, ref: Ref) -> str:
        """The leaf id(s) of the leaf column."""
        if self.number:
            return self.looked_up(str, ref)
        return self.outcome(str, ref, (int, "INT"))


def _empty_list(value: str, among: bool) -> str:
    """``value IN ()`` (``NOT IN ()`` where not ``among``), which SQL cannot write: x <> x is IN ()'s false and x = x
    NOT IN ()'s true, NULL for NULL as IN's."""
    return f"{value} {'<>' if among else '='} {value}"


class Writer:
    """The SQL pieces of one model in one dialect; each tree written by the first strategy of the
    dialect's row that takes it (``strategies``: name -> :class:`TreeSql` subclass). ``with_leaf``:
    the query has a leaf column; ``kept``: input columns the query passes through (no feature's name)."""

    def __init__(self, model: Model, d: Dialect, strategies: dict[str, type[TreeSql]], with_leaf: bool = False,
                 expression: bool = False, kept: tuple[str, ...] = (), fit: bool = True,
                 ask_sqlite: bool | None = None):
        self.model, self.d, self.with_leaf, self.expression, self.kept = model, d, with_leaf, expression, kept
        self.fit = fit  # measure each column against the parser's stack (fitted); False: the dialect's nesting
        # fit by asking the sqlite3 module's SQLite (None: where it is a stock build), else by measuring in Python
        self.ask_sqlite = usual_stack() if ask_sqlite is None else ask_sqlite
        self.vector = node_vector(model)  # what a tree sums for a node: its value (then its label value)
        self.columns = [d.identifier(f.name) for f in model.features]
        _check_names(model, d)
        # each column as the model reads it (Dialect.numeric_text): a derived table's column of the same name, in a
        # query around the table (:meth:`converted`), in an expression a correlated one of the row (:meth:`item`)
        # (an expression reads them only as a correlated subquery's derived table, which MariaDB refuses: "Unknown
        # column"; read at each test instead, a 500-tree LightGBM model's MySQL expression grew from 1.3 MB to 16 MB,
        # MariaDB's max_allowed_packet: its columns are read as they are, numbers)
        once = d.correlated_steps or not expression  # a derived table reads the row's columns once (read_once)
        self.conversions = self._conversions() if once else {}
        self.prefix = _free_prefix([f.name for f in model.features] + list(kept), d)
        # the column a test reads: one a derived table would rename (SQLite: true, false) under a name of our own,
        # the first derived table's (converted, read_once), and the SELECT's passed through under its own again
        self.values = [self.column(f"f{i}") if d.renamed_in_tables and re.fullmatch(d.renamed_in_tables, f.name)
                       else column for i, (f, column) in enumerate(zip(model.features, self.columns))]
        # what the first derived table (converted, read_once) reads for a feature it does not pass on as it is,
        # under the name the tests read
        self.row_reads = {value: self.conversions.get(i, column) for i, (column, value)
                          in enumerate(zip(self.columns, self.values)) if i in self.conversions or value != column}
        # what a numeric feature's tests read: its column, in an expression cast at each test where a query's
        # conversion (_conversions) casts it once a row (Dialect.number_cast: a BOOLEAN, as get_dummies makes)
        cast = expression and d.number_cast
        self.numbers = [d.number_cast.format(value) if cast and f.is_numeric else value
                        for f, value in zip(model.features, self.values)]
        if expression and d.integer_as_double and not once:  # (once: read_once's conversion is a double)
            cuts = split_cuts(model)
            for i in model.used_features():
                if model.features[i].is_numeric and integers_past_doubles(cuts[i]):
                    self.numbers[i] = d.integer_as_double.format(self.values[i])
        self.reads = [self._read(i) for i in range(len(model.features))]
        self.categories = [self._category(i) for i in range(len(model.features))]
        # an expression's reads of the row bound to a lambda's variable (read_once), where no derived table reads it
        self.row_bound: dict[str, str] = {}
        for i in self._coded_numbers:  # its category (NULL where missing), what every test reads, once a row:
            if once:  # in the derived table beside the column, which is passed on as it is
                self.row_reads[self.column(f"c{i}")] = self.categories[i]
                self.categories[i] = self.column(f"c{i}")
            elif d.binding:
                self.row_bound[f"c{i}"] = self.categories[i]
                self.categories[i] = f"{self.column('row')}.{self.prefix}c{i}"
            self.reads[i] = self.categories[i]
        self.numbered = self._numbered()
        # each distinct tuple split -> the name of its answer, in a query a column computed once a row that every
        # test of the split reads (:meth:`with_tuples`; a CatBoost model's trees repeat a split's thousands of keys)
        self.tuple_names = _tuple_names(model)
        self._tuples: dict = {}  # a tuple split -> its TupleTest and CodedTuples
        self._tuple_tests: dict = {}  # (a tuple split, among) -> its test, in an expression
        self._digits: dict[int, str] = {}  # a combined feature -> its digit in the keys
        self.exclusive = [all(node.split is None or node.split.missing.kind != Route.FRACTION for node in tree.nodes)
                          for tree in model.trees]  # no fractional route: exactly one rule applies
        self._rules: dict[int, TreeRules] = {}
        self.definitions: dict[str, tuple[Callable[[Ref], str], tuple[str, ...]]] = {}
        self._inlined: dict[str, str] = {}
        self._depths: dict[str, int] = {}  # how deep each named value is, inlined (stand_in)
        self._lengths: dict[str, int] = {}  # how long each named value is, inlined (inlined_length)
        self.split_tests: dict[tuple, list] = {}  # a nested CASE's tests of each kind of split (nested.py)
        self.nesting = d.nesting  # CASE levels along a tree's splits (nested.py), fewer where the parser needs it
        self.needed: int | None = None  # the nesting the last column that needed less had (fitted)
        # a score may be NaN (a linear leaf reading +inf and -inf, an infinite sum), NULL in SQLite
        self.nan_scores = scores_nan(model)
        # float32 arithmetic where the engine has no 4-byte float (SQLite): each rounded step is a named value
        # that the next reads as a column (:meth:`round_step`); in an expression, each output that reads them is a
        # scalar subquery of those steps (:meth:`item`)
        self.stepped = d.float32 is None and model.combine.precision == Precision.FLOAT32
        self.inlines = expression and not self.stepped  # each named value written wherever it is read
        self.null_scores = d.nan_is_null and self.nan_scores
        self._scores_defined = False
        self.found: dict = {}  # what a strategy finds once for all its trees (walk.py: the trees walked together)
        self.nodes = sum(len(tree.nodes) for tree in model.trees)
        # each tree's strategy, the first of the dialect's that takes it (found before any is written: a walk
        # looks up which trees are walked beside it)
        tried = [strategies[name] for name in (expression and d.expression_strategies or d.strategies)]
        self.takers = [_first_taker(self, i, tried) for i in range(len(model.trees))]
        self.written = [taker(self, i) for i, taker in enumerate(self.takers)]

    def rules(self, index: int) -> TreeRules:
        """Tree ``index`` lowered to its rules (:func:`treegen.lower.lower_tree`), once."""
        if index not in self._rules:
            self._rules[index] = lower_tree(self.model, self.model.trees[index])
        return self._rules[index]

    # -- conditions --------------------------------------------------------------------

    def _conversions(self) -> dict[int, str]:
        """Each feature the trees read, as the model reads its column whatever the engine holds in it, where the
        dialect says how (``numeric_text``, ``number_read``, ``nominal_trimmed``; SQLite: a TEXT column as ``.import``
        makes it)."""
        d, model = self.d, self.model
        conversions = {}
        points = split_points(model) if d.numeric_text is not None else {}
        for i in model.used_features():
            feature = model.features[i]
            if feature.is_numeric:
                if d.numeric_text is not None:
                    conversions[i] = d.numeric_text(self.columns[i], d.string(feature.name), points[i])
                elif d.number_read and not self.expression:
                    conversions[i] = d.number_read(self.columns[i], d.string(feature.name))
                elif d.number_cast and not self.expression:
                    conversions[i] = d.number_cast.format(self.columns[i])
            elif (read := self._nominal_read(i)) != self.columns[i]:
                conversions[i] = read
        return conversions

    def _nominal_read(self, feature: int) -> str:
        """A nominal feature's column as the model reads it (:meth:`_conversions`): a number as
        :meth:`_named_by_number`; a text '', ? or NA (spaces around) missing, as in a CSV, in every engine alike
        (:meth:`_missing_text`); else itself."""
        column = self.columns[feature]
        as_read = self._booleans_read(feature, column) or column
        missing = self._missing_text(feature, column)
        text = f"CASE WHEN {missing} THEN NULL ELSE {as_read} END" if missing else as_read
        return self._named_by_number(feature, column, self._as_text(text), self._as_text(as_read)) or text

    def _booleans_read(self, feature: int, column: str) -> str | None:
        """The nominal feature's ``column`` as text, a BOOLEAN (``Dialect.nominal_boolean``) as the category it names
        (:attr:`treegen.model.Feature.named_by_boolean`: true 'True' for a pandas bool column's categories, as
        Model.predict and every target's API read a Boolean; a BOOLEAN's text 'true' named none: DuckDB's read_csv
        of a pandas CSV, 86 of 200 rows otherwise); None where no Boolean names a category, or the engine has none."""
        f = self.model.features[feature]
        if self.d.nominal_boolean is None or f.is_numeric or f.codes is not None or f.named_by_boolean == (None, None):
            return None
        text = self._as_text(column)
        whens = " ".join(f"WHEN {self.d.string(spelt)} THEN {self.d.string(name)}"
                         for spelt, name in zip(("false", "true"), f.named_by_boolean) if name is not None)
        boolean = self.d.nominal_boolean.format(column)
        return f"CASE WHEN {boolean} THEN CASE {text} {whens} ELSE {text} END ELSE {text} END"

    def _missing_text(self, feature: int, column: str) -> str | None:
        """Whether the nominal feature's ``column`` holds a text a CSV field reads as missing ('', ? or NA, spaces
        around: ``Dialect.nominal_trimmed``) that is none of its categories (a model from ARFF, pandas or CatBoost
        may have '' as one, which a table can hold and the API takes); None where the dialect reads none so, and in
        an expression of an engine of typed columns, which reads the column as it is: read so, the row is read once
        in a scalar subquery, which PostgreSQL's generated columns and indexes refuse."""
        if not self.d.nominal_trimmed or (self.expression and self.d.numeric_text is None):
            return None
        text, tokens = self._as_text(column), sorted(MISSING_TOKENS)
        # trimmed only where a space begins or ends it (DuckDB: 88 -> 44 ns a row, the column read as it is 15)
        trimmed = self.d.nominal_trimmed.format(column)
        bytewise = f"{text}{self.d.bytewise}"
        spaced = f"({bytewise} LIKE ' %' OR {bytewise} LIKE '% ') AND {trimmed} IN ({self.strings(tokens)})"
        missing = f"({self.among_texts(text, tokens)} OR {spaced})"
        own = [c for c in self.model.features[feature].categories if reads_as_missing(c)]
        return f"{missing} AND {self.among_texts(text, own, False)}" if own else missing

    def _named_by_number(self, feature: int, column: str, otherwise: str, unknown: str) -> str | None:
        """The nominal feature's ``column`` where it holds a number (``Dialect.nominal_number``) as the category its
        double names (:attr:`treegen.model.Feature.named_by_number`: INTEGER 2002 and REAL 2002.0 are '2002',
        as Model.predict reads them), ``unknown`` where it names none, NULL where it is NaN (missing, as
        Model.predict reads NaN); ``otherwise`` where the column holds text. None where no category names a number,
        or the feature's codes name them (:meth:`_category`)."""
        if not self._numbers_name(feature):
            return None
        return self._by_number(column, self.model.features[feature].named_by_number, unknown, otherwise)

    def _by_number(self, column: str, names: dict[float, str], others: str, otherwise: str) -> str:
        """``column`` where it holds a number (``Dialect.nominal_number``): NULL where it is NaN, the category
        ``names`` gives its double, else ``others``; ``otherwise`` where it holds text."""
        d = self.d
        test, double = (part.format(column) for part in d.nominal_number)
        named = " ".join([f"WHEN {d.nan} THEN NULL"] * bool(d.nan)  # (NaN = NaN where a DOUBLE holds NaN)
                         + [f"WHEN {d.double(number)} THEN {d.string(name)}" for number, name in names.items()])
        number = f"CASE {double} {named} ELSE {others} END" if named else others
        return f"CASE WHEN {test} THEN {number} ELSE {otherwise} END"

    def converted(self, source: str) -> str:
        """The input table with each feature's column read as the model reads it (:attr:`conversions`), once a row
        in a derived table of its own, kept apart (else SQLite copies the conversion into every test that reads
        it), under the column's own name (or :attr:`values`' own, where the engine would rename it): the steps
        after it and the SELECT's pass-through read it as they read the table; and after them a feature of codes'
        category under a name of our own (:attr:`_coded_numbers`), its column passed through as it is."""
        if not self.row_reads:
            return source
        items = ([self.d.identifier(name) for name in self.kept]
                 + [f"{self.row_reads[value]} AS {value}" if value in self.row_reads else value
                    for value in self.values]
                 + [f"{read} AS {name}" for name, read in self.row_reads.items() if name not in self.values])
        step = render("sql", "select.sql.j2", items=items, source=source, alias=self.column("table"),
                      end=self.d.kept_apart)
        return f"({step})"

    def _read(self, feature: int) -> str:
        """The feature's column as the model reads it: NULL inside its missing interval, and where a nominal
        feature's number column holds a NaN that the tests read as it is (:meth:`_numbered`; where the column is
        converted, :meth:`_named_by_number` reads it NULL)."""
        column, interval = self.numbers[feature], self.model.features[feature].missing_interval
        if self.d.nan and feature not in self.conversions and self._numbers_name(feature):
            test, double = self.d.nominal_number
            nan = f"CASE WHEN {test.format(column)} THEN {double.format(column)} = {self.d.nan} END"
            return f"CASE WHEN {nan} THEN NULL ELSE {column} END"
        if interval is None:
            return column
        # an infinite end bounds nothing (and MySQL has no infinity to write): XGBoost's missing=inf
        ends = [f"{column} {op} {self.d.double(end)}" for op, end in zip((">=", "<="), interval) if math.isfinite(end)]
        inside = " AND ".join(ends) or f"{column} IS NOT NULL"
        return f"CASE WHEN {inside} THEN NULL ELSE {column} END"

    def _category(self, feature: int) -> str:
        """The nominal feature's column as the model reads its category: for a feature of integer codes
        (``Feature.codes``), a text that is none of the categories but spells a number (as the engine
        reads it: ``Dialect.text_number``) is the category that number names (:meth:`_number_category`: its code's,
        else the one of the same double: '0.50' is '0.5'), and so is a number, where the engine's column has a
        type of its own (:meth:`_coded_number`)."""
        column, f = self.values[feature], self.model.features[feature]
        if f.codes is None and feature not in self.conversions:  # (else a number is read there)
            booleans = self._booleans_read(feature, column)
            text = booleans or self._as_text(column)
            return self._named_by_number(feature, column, text, text) or booleans or column
        if f.codes is None:
            return column
        text = self._as_text(column)  # (a number column's text, where the engine binds a function by type)
        named = self._number_category(feature, self.d.text_number.format(text), text, text)
        if not all(_reads_as_itself(c, f, self.model.numeric.cast) for c in f.categories):
            # a category's text that reads as another's number is itself
            named = f"CASE WHEN {self.among_texts(text, f.categories)} THEN {text} ELSE {named} END"
        if feature not in self._coded_numbers:
            return named
        if feature in self.conversions and (missing := self._missing_text(feature, column)):  # (read beside it)
            named = f"CASE WHEN {missing} THEN NULL ELSE {named} END"
        return self._coded_number(feature, column, named)

    @functools.cached_property
    def _coded_numbers(self) -> tuple[int, ...]:
        """The features of codes whose column an engine of fixed types may hold numbers in (``nominal_number``
        without ``numeric_text``: DuckDB, PostgreSQL, Spark), read by :meth:`_coded_number`."""
        if self.d.nominal_number is None or self.d.numeric_text is not None:
            return ()
        return tuple(i for i, f in enumerate(self.model.features) if f.codes is not None)

    def _coded_number(self, feature: int, column: str, text: str) -> str:
        """A feature of codes' ``column`` as the category a number names where it holds one (``Dialect.nominal_number``,
        read by the column's type: a REAL's float32, not its text's double), as Model.predict reads it
        (:func:`treegen.model.number_category`): NaN missing, the category its code names if the feature has it,
        else the one whose text reads as the number; ``text`` (the category its text names) where it holds text.
        Read as the text of a number, a DuckDB, PostgreSQL or Spark column of numbers stopped the query (a regular
        expression of a number: no such function), and a NaN would be an unknown category."""
        double = self.d.nominal_number[1].format(column)
        return self._by_number(column, self._coded_names(feature),
                               self._code_named(feature, double, double, self._as_text(column)), text)

    def _coded_names(self, feature: int) -> dict[float, str]:
        """A feature of codes' numbers that name a category by its text (:attr:`treegen.model.Feature.named_by_number`)
        where their code names none of its categories: what a number names after its code
        (:func:`treegen.model.number_category`)."""
        return numbers_past_codes(self.model.features[feature], self.model.numeric.cast)

    def _number_category(self, feature: int, number: str, column: str, fallback: str) -> str:
        """The category the double ``number`` (NULL: none) names for a feature of codes, as
        :meth:`_coded_number` reads a number column's (:func:`treegen.model.number_category`): one of
        :meth:`_coded_names`, else the category its code names (:meth:`_code_named`), else ``fallback``; a NaN
        names none (read from a text, it is no category, not missing)."""
        names = " ".join(f"WHEN {self.d.double(x)} THEN {self.d.string(name)}"
                         for x, name in self._coded_names(feature).items())
        code = self._code_named(feature, number, column, fallback)
        return f"CASE {number} {names} ELSE {code} END" if names else code

    def _code_named(self, feature: int, number: str, column: str, fallback: str) -> str:
        """The category's text that the code of the double ``number`` names under the feature's codes
        (:func:`treegen.model.code_category`, after the model's cast), ``fallback`` where it names none;
        ``column``: the column ``number`` reads, read again where the engine has no 4-byte float."""
        d, codes = self.d, self.model.features[feature].codes
        value = number
        if self.model.numeric.cast == "float32" and codes != Codes.INTEGRAL:  # XGBoost's: a code is read as its float32
            # under one half only zero, the sign and a fraction matter: what float32 rounds to (-)0 is category 0
            tiny = d.double(2.0 ** -150)  # half the least float32: a tie, rounded to even, (-)0
            if d.float32:  # float4 refuses 1e-50: a stand-in of the same sign that truncates to 0
                small = (f"CASE WHEN abs({number}) <= {tiny} THEN 0 WHEN {number} < 0 THEN {d.double(-0.25)} "
                         f"ELSE {d.double(0.25)} END")
                value = f"CASE WHEN abs({number}) < 0.5 THEN {small} ELSE {d.float32.format(number)} END"
            else:  # SQLite: rounded in double, which below float32's normal range keeps more bits than
                # float32 but its sign and a size under 1. Read only in `named`, where the text is a number under
                # CODE_LIMIT: no overflow, and the plain cast (text_number's own) is that number without its text's
                # tests, SQLite's 14 GLOBs, four times (measured, an 8-tree model: 100 us a row instead of 420)
                read = f"CAST({column} AS {d.double_type})"
                value = f"CASE WHEN abs({read}) <= {tiny} THEN 0 ELSE {sql_arithmetic.float32_split(d, read)} END"
        code = d.truncated.format(value)
        if codes == Codes.INTEGRAL:
            code = f"CASE WHEN {value} = {code} THEN {code} END"
        elif codes == Codes.NONNEGATIVE:
            code = f"CASE WHEN {value} >= 0 THEN {code} END"
        limit = d.double(CODE_LIMIT)
        text = d.cast(d.cast(code, d.integer_type), d.cast_text)
        return f"coalesce(CASE WHEN {number} > -{limit} AND {number} < {limit} THEN {text} END, {fallback})"

    def leaf_value(self, node: Node) -> str:
        """A node's value; a linear leaf's (:func:`treegen.model.leaf_value`) as ``const + coeff *
        x + ...``, left to right in double, its plain value where an input is missing (NULL, or NaN
        where the engine holds it), an input in the zero band read as 0.0."""
        d, linear = self.d, node.linear
        if linear is None:
            return d.double(node.value[0])
        band = self.model.numeric.zero_band
        read = ((lambda f: f"CASE WHEN {self.numbers[f]} >= {d.double(-band)} AND {self.numbers[f]} <= {d.double(band)} "
                           f"THEN {d.double(0.0)} ELSE {self.numbers[f]} END")
                if band else (lambda f: self.numbers[f]))
        total = linear_sum(linear, read, d.double)
        inputs = sorted({f for f, _ in linear.terms})
        if not inputs:
            return total
        missing = " OR ".join(self.missing(Condition(f, MISSING)) for f in inputs)
        return f"CASE WHEN {missing} THEN {d.double(node.value[0])} ELSE {total} END"

    def missing(self, c: Condition) -> str:
        """True when the condition's feature is missing for the row."""
        column = self.reads[c.feature]
        feature = self.model.features[c.feature]
        if feature.is_numeric:
            nan = f" OR {column} = {self.d.nan}" if self.d.nan else ""
            return f"{column} IS NULL{nan}"
        if not feature.categories:  # every value is known
            return f"{column} IS NULL"
        return f"{column} IS NULL OR {self.among(c.feature, feature.categories, False)}"

    def _numbers_name(self, feature: int) -> bool:
        """Whether a number in the nominal feature's column may name a category here: some category's text reads as
        a number, the dialect tells a number column (``nominal_number``), and no codes (their rule: _category)."""
        feature = self.model.features[feature]
        return (self.d.nominal_number is not None and not feature.is_numeric and feature.codes is None
                and bool(feature.named_by_number))

    def _as_text(self, column: str) -> str:
        """A nominal column as text where a CASE's branches must be of one type (the column's is fixed: no
        ``numeric_text``), else as it is."""
        return f"CAST({column} AS {self.d.cast_text})" if self.d.numeric_text is None else column

    def _numbered(self) -> dict[int, tuple[str, str, str]]:
        """The nominal features whose column each test reads as it is where a number names a category (no
        conversion of the row: an expression, or an engine of fixed types), as (holds a number, its double, its
        text): :meth:`among` tests such a number among the numbers that name the values, the size of the values'
        list, where the category each names (:meth:`_category`) would be every one's list at every test (DuckDB: 4.1
        times the text of a C4.5 model of 200 numbered categories, measured; 2.3 so)."""
        test, double = self.d.nominal_number or ("", "")
        return {i: (test.format(column), double.format(column),
                    self._booleans_read(i, column) or self._as_text(column))
                for i, column in enumerate(self.values) if i not in self.conversions and self._numbers_name(i)}

    def among(self, feature: int, values, among: bool = True) -> str:
        """The nominal feature's value is (or is not) one of ``values``, compared as exact strings; a number (where
        a test reads the column as it is: :meth:`_numbered`) by the numbers that name them."""
        if feature not in self.numbered:
            return self.among_texts(self.categories[feature], values, among)
        holds_number, double, text = self.numbered[feature]
        wanted = set(values)
        numbers = [self.d.double(x) for x, name in self.model.features[feature].named_by_number.items()
                   if name in wanted]
        if numbers:
            by_number = f"{double} {'IN' if among else 'NOT IN'} ({', '.join(numbers)})"
        else:
            by_number = _empty_list(double, among)
        return f"CASE WHEN {holds_number} THEN {by_number} ELSE {self.among_texts(text, values, among)} END"

    def among_texts(self, text: str, values, among: bool = True) -> str:
        """The text is (or is not) one of ``values``, compared as exact strings."""
        key = self.d.text_key.format(text)
        if not values:
            return _empty_list(key, among)
        if len(values) == 1:
            return f"{key} {'=' if among else '<>'} {self.d.string(values[0])}"
        return f"{key} {'IN' if among else 'NOT IN'} ({self.strings(values)})"

    def satisfied(self, c: Condition) -> str:
        """True when a present value satisfies the condition (NULL or false otherwise)."""
        column = self.reads[c.feature]
        if c.kind == MISSING:
            return "1 = 0"
        if c.kind != INTERVAL:
            return self.among(c.feature, c.values) if c.values else "1 = 0"
        terms = []
        if c.low == math.inf:
            terms.append("1 = 0")
        elif not c.unbounded_below and (c.low > -math.inf or self.d.infinity):  # (no -inf to leave out without one)
            terms.append(f"{column} > {self.d.double(c.low)}")
        if c.high < math.inf:
            terms.append(self.at_most(column, c.high))
        elif self.d.nan:  # NaN sorts above every number: only an open upper end lets it through
            terms.append(f"{column} <> {self.d.nan}")
        return " AND ".join(terms) or f"{column} IS NOT NULL"

    def at_most(self, column: str, cut: float) -> str:
        """``column <= cut`` for a present value (NULL, and NaN, fail it)."""
        if cut == math.inf:
            return f"{column} <> {self.d.nan}" if self.d.nan else f"{column} IS NOT NULL"
        if cut == -math.inf and not self.d.infinity:  # no -infinity to be equal to
            return "1 = 0"
        return f"{column} <= {self.d.double(cut)}"

    def reaches(self, c: Condition) -> str:
        """True when the condition's factor is not zero."""
        if c.split is not None:  # a tuple split's answer: its key reads missing values itself
            return self.tuple_test(c.split, c.kind == TUPLE)
        if _apart(c):
            return self.reaches_apart(c)
        if c.if_missing == 0.0:
            return self.satisfied(c)
        if c.kind != INTERVAL and c.kind != MISSING:  # a value outside the set but known fails
            others = [v for v in self.model.features[c.feature].categories if v not in c.values]
            return f"{self.reads[c.feature]} IS NULL OR {self.among(c.feature, others, False)}" if others else "1 = 1"
        if c.kind == MISSING:
            return self.missing(c)
        return f"{self.missing(c)} OR {self.satisfied(c)}"

    def reaches_apart(self, c: Condition) -> str:
        """:meth:`reaches` for a nominal condition whose missing values and unknown categories have
        factors of their own (XGBoost's categorical splits)."""
        column, categories = self.reads[c.feature], self.model.features[c.feature].categories
        tests = [self.among(c.feature, c.values)] if c.kind != MISSING and c.values else []
        if c.if_missing > 0.0:
            tests.append(f"{column} IS NULL")
        if c.if_unknown > 0.0 and categories:
            tests.append(self.among(c.feature, categories, False))
        return " OR ".join(tests) or "1 = 0"

    def conjunction(self, conditions) -> str:
        if not conditions:
            return "1 = 1"
        tests = [self.reaches(c) for c in conditions]
        return " AND ".join(f"({t})" if " OR " in t else t for t in tests)

    def weight(self, rule: Rule) -> str:
        """A rule's weight: 0.0 where its conditions exclude the row, else :meth:`shared`."""
        return f"CASE WHEN {self.conjunction(rule.conditions)} THEN {self.shared(rule.shares)} ELSE {self.d.double(0.0)} END"

    def weighs(self, rule: Rule) -> str:
        """True when a rule's weight is above zero: it applies, and the product of its fractions has
        not underflowed to zero (rounding is monotone: if the product of them all does not, no
        product of some of them does)."""
        product = 1.0
        for share in rule.shares:
            product = product * share.fraction
        above = f" AND {self.shared(rule.shares)} > {self.d.double(0.0)}" if product == 0.0 else ""
        return self.conjunction(rule.conditions) + above

    def shared(self, shares: tuple[Share, ...]) -> str:
        """J48's weight of a path (:meth:`treegen.lower.Rule.weight`): 1.0 times the fraction of each
        share whose feature is missing, in path order. It depends only on which of the shares'
        features are missing: for a few features, a CASE nested over them, one test each, whose
        weights are computed here as the model multiplies (a chain of 10,000 splits on one feature:
        one test); else one factor per share, left to right."""
        d = self.d
        features = list(dict.fromkeys(share.feature for share in shares))
        if len(features) > SHARED_FEATURES or 2 ** len(features) > 2 * len(shares):
            factors = [f"CASE WHEN {self.share_missing(s)} THEN {d.double(s.fraction)} ELSE {d.double(1.0)} END"
                       for s in shares]
            return " * ".join(factors) or d.double(1.0)
        tests = {f: self.share_missing(next(s for s in shares if s.feature == f)) for f in features}

        def weight(missing: set, undecided: list) -> str:
            if undecided:
                f, rest = undecided[0], undecided[1:]
                return f"CASE WHEN {tests[f]} THEN {weight(missing | {f}, rest)} ELSE {weight(missing, rest)} END"
            product = 1.0
            for share in shares:
                if share.feature in missing:
                    product = product * share.fraction
            return d.double(product)
        return weight(set(), features)

    def share_missing(self, share: Share) -> str:
        """True when the share's fraction is taken: the feature is missing (or, ``by_unknown``, an
        unknown category; else only NULL)."""
        if share.by_unknown or self.model.features[share.feature].is_numeric:
            return self.missing(Condition(share.feature, MISSING))
        return f"{self.reads[share.feature]} IS NULL"

    # -- tuple splits ------------------------------------------------------------------

    def tuple_test(self, split, among: bool = True) -> str:
        """True when the row's key (:func:`treegen.model.tuple_key`) is (``among``), or is not, one of the tuple
        split's tuples: its answer computed once a row (CatBoost's trees test a split of thousands of keys many
        times), a column of a query's derived table (:meth:`with_tuples`) or of an expression's scalar subquery
        (``correlated_steps``), or a field of an expression's lambda's variable (``binding``; :meth:`read_once`);
        else, in an expression, the test itself (the default CatBoost pairs model's DuckDB expression ran its first
        row in 22.6 s so, in 0.9 s bound)."""
        if not self.expression or self.d.correlated_steps:
            name = self.column(self.tuple_names[split])
        elif self.d.binding:
            name = f"{self.column('tuples')}.{self.prefix}{self.tuple_names[split]}"
        else:
            if (split, among) not in self._tuple_tests:
                self._tuple_tests[split, among] = self.tuple_answer(split, self.digit, among)
            return self._tuple_tests[split, among]
        return name if among else f"NOT {name}"

    def coded(self, split) -> tuple[TupleTest, CodedTuples]:
        """A tuple split's test and its keys as numbers (:func:`treegen.emit.common.coded_tuples`), made once."""
        if split not in self._tuples:
            test = tuple_test(self.model, split)
            coded = coded_tuples(test, self.category_codes, lambda f: self.model.features[f].name)
            self._tuples[split] = test, coded
        return self._tuples[split]

    @functools.cached_property
    def category_codes(self) -> list[tuple[str, ...]]:
        return category_codes(self.model)

    def tuple_answer(self, split, digit: Callable[[int], str], among: bool = True) -> str:
        """The key of a tuple split as an integer -- each combined feature's ``digit`` (:meth:`digit`), then each
        part's child position, in mixed radix (exact: below 2^53, in 64-bit integers) -- (not) among its keys, a list
        of integer constants that the engines hash or sort once a query, or a blob of a byte a key
        (:meth:`Dialect.keys_test <treegen.emit.sql.dialects.Dialect.keys_test>`)."""
        test, coded = self.coded(split)
        places = [digit(f) for f in coded.features] + [self.part_position(part) for part in test.parts]
        key = places[0] if math.prod(coded.radices) < 2 ** 31 else self.d.cast(places[0], self.d.integer_type)
        for n, (place, radix) in enumerate(zip(places[1:], coded.radices[1:])):
            key = f"{key if n == 0 else f'({key})'} * {radix} + {place}"
        if not coded.keys:
            return _empty_list(f"({key})", among)
        return self.d.keys_test(f"({key})", coded.keys, among)

    def digit(self, feature: int) -> str:
        """A combined feature's digit in a tuple split's key (:class:`treegen.emit.common.CodedTuples`): 1 where
        it is missing, 2 + its category's code, else 0 (a category the feature does not know). The text is compared in
        one simple ``CASE`` (a test a category, MySQL's ``CAST(CONVERT(...) AS BINARY) =`` in each, made the default
        CatBoost pairs model's MySQL expression 24.4 MB, which MariaDB's default max_allowed_packet refuses), but
        where a number names a category (:meth:`among`, a test a category)."""
        if feature not in self._digits:
            codes = category_digits(self.category_codes[feature])
            missing = f"WHEN {self.reads[feature]} IS NULL THEN 1"
            if feature in self.numbered:
                whens = " ".join(f"WHEN {self.among(feature, [category])} THEN {code}" for category, code in codes.items())
                self._digits[feature] = f"CASE {missing} {whens} ELSE 0 END"
            else:
                whens = " ".join(f"WHEN {self.d.string(category)} THEN {code}" for category, code in codes.items())
                text = self.d.text_key.format(self.categories[feature])
                self._digits[feature] = f"CASE {missing} ELSE CASE {text} {whens} ELSE 0 END END"
        return self._digits[feature]

    def part_position(self, part: tuple) -> str:
        """The child position (0 or 1) that a part of a tuple split (:class:`treegen.emit.common.TupleTest`) sends
        the row to, a missing value its missing child's, an ``in`` part's unknown category its unknown child's."""
        if part[0] == "<=":
            _, f, cut, missing = part
            return (f"CASE WHEN {self.missing(Condition(f, MISSING))} THEN {missing} "
                    f"WHEN {self.at_most(self.reads[f], cut)} THEN 0 ELSE 1 END")
        _, f, names, missing, unknown = part
        whens = [f"WHEN {self.reads[f]} IS NULL THEN {missing}"] + ([f"WHEN {self.among(f, names)} THEN 0"] if names else [])
        others = [c for c in self.model.features[f].categories if c not in set(names)]
        if unknown != 1 and others:
            whens.append(f"WHEN {self.among(f, others)} THEN 1")
        return f"CASE {' '.join(whens)} ELSE {unknown} END"

    def with_tuples(self, source: str, tables: int) -> str:
        """``source`` and each tuple split's answer (:meth:`tuple_answer`), a column computed once a row, in a
        derived table of its own, around one of each combined feature's digit (:meth:`digit`): each key list is
        written once, and every test of the split reads the column. ``tables``: the SELECTs around it."""
        if not self.tuple_names:
            return source
        digits, answers = self.tuple_values(lambda f: self.column(f"digit{f}"))
        source = self._derived(source, "digits", [f"{text} AS {self.column(name)}" for name, text in digits.items()],
                               tables + 1)
        return self._derived(source, "tuples", [f"{text} AS {self.column(name)}" for name, text in answers.items()],
                             tables)

    def tuple_values(self, digit: Callable[[int], str]) -> tuple[dict[str, str], dict[str, str]]:
        """By the names they are computed under once a row: each combined feature's digit (:meth:`digit`), and each
        tuple split's answer (:meth:`tuple_answer`), which reads the digits through ``digit``."""
        features = sorted({f for split in self.tuple_names for f in split.features})
        return ({f"digit{f}": self.digit(f) for f in features},
                {name: self.tuple_answer(split, digit) for split, name in self.tuple_names.items()})

    def _derived(self, source: str, alias: str, items: list[str], tables: int) -> str:
        """A derived table of ``source``'s columns and ``items``, kept apart (computed once a row)."""
        alias = self.column(alias)
        fitted = [self.fitted(lambda ref, item=item: item, tables, inlined=False) for item in items]
        step = render("sql", "select.sql.j2", items=[f"{alias}.*"] + fitted, source=source, alias=alias,
                      end=self.d.kept_apart)
        return f"({step})"

    # -- trees combined ------------------------------------------------------------------

    def chain(self, shallow: bool = False, rounded: bool = False) -> int:
        """The most terms one ``a + b + ...`` may have in the dialect (``lookup_sum_terms`` when every term
        is ``shallow``: a value picked by number or a literal; ``rounded_sum_terms`` when each step is
        ``rounded``; 1, a fold, where the dialect guards a float32 sum's overflow, which reads the sum twice)."""
        if rounded and self.d.float32_sum:
            return 1
        if rounded and self.d.rounded_sum_terms:
            return self.d.rounded_sum_terms
        return self.d.lookup_sum_terms if shallow and self.d.lookup_sum_terms else self.d.sum_terms

    def rounded_add(self, rounded: Callable[[str], str] | None) -> str:
        """A fold's step ``a + b``, ``rounded`` so (float32: guarded where the dialect's cast would raise an error
        where the sum overflows, :func:`.arithmetic.float32_sum`)."""
        return "a + b" if rounded is None else sql_arithmetic.float32_sum(self.d, "a + b")

    def total(self, terms: list[str], shallow: bool = False, rounded: Callable[[str], str] | None = None) -> str:
        """``a + b + ...`` left to right, as the model adds, so bit for bit: one chain up to the dialect's
        :meth:`chain`, else its ``fold``. Without a fold, parenthesised groups keep a longer sum within
        the engine's expression depth, exact only to rounding (within 1e-12): a full query avoids
        this with named partial sums (:meth:`sum_of`). ``rounded``: each partial sum rounded so
        (float32), in a chain or the fold (:meth:`rounded_add`)."""
        chunk = self.chain(shallow, rounded is not None)
        if len(terms) > chunk and self.d.fold:
            add = self.rounded_add(rounded)
            return self.d.fold.format(first=terms[0], rest=", ".join(terms[1:]), add=add)
        if rounded:
            total = terms[0]
            for term in terms[1:]:
                total = rounded(f"{total} + {term}")
            return total
        while len(terms) > chunk:
            terms = [self.d.group.format(" + ".join(terms[i:i + chunk])) for i in range(0, len(terms), chunk)]
        return " + ".join(terms)

    def sum_of(self, name: str, terms: list[Callable[[Ref], str]], uses, shallow: bool = False,
               rounded: Callable[[str], str] | None = None) -> tuple[Callable[[Ref], str], list[str]]:
        """The sum of ``terms`` left to right, and the named values it reads. Longer than the dialect's
        chain and without a fold, it is added in named partial sums ``name_0``, ``name_1``, ..., each a
        step of the query that starts from the last one: the additions keep the model's order, so the
        sum is exact at any length (in expression mode, where every name is written inline,
        :meth:`total` groups them instead)."""
        chunk = self.chain(shallow, rounded is not None)
        if len(terms) <= chunk or self.d.fold or self.inlines:
            return (lambda ref: self.total([t(ref) for t in terms], shallow, rounded)), list(uses)
        partial, reads = None, list(uses)
        for n, start in enumerate(range(0, len(terms), chunk - 1)):
            group = terms[start:start + chunk - 1]
            partial = self.define(f"{name}_{n}", lambda ref, group=group, before=partial: self.total(
                ([before(ref)] if before else []) + [t(ref) for t in group], shallow, rounded), reads)
            reads = list(uses) + [f"{name}_{n}"]
        return partial, reads

    def summed(self, name: str, first: Callable[[Ref], str], trees: list[TreeSql], term: Callable[[TreeSql, Ref], str],
               node_term: Callable[[Tree, Node], float], uses, shallow: bool = False,
               rounded: Callable[[str], str] | None = None) -> tuple[Callable[[Ref], str], list[str]]:
        """``first`` plus ``term`` of each of ``trees`` left to right, and the named values it reads: the
        terms one array folded (:meth:`TreeSql.together`, each node's term ``node_term``) where the
        dialect can, else :meth:`sum_of`."""
        together = trees[0].together(trees, node_term) if trees else None
        if together is None:
            return self.sum_of(name, [first] + [(lambda ref, t=t: term(t, ref)) for t in trees], uses, shallow, rounded)
        add = self.rounded_add(rounded)
        return (lambda ref: self.d.arrays.fold.format(array=together(ref), first=first(ref), add=add)), list(uses)

    def define_raw_score(self, name: str, k: int, uses) -> Callable[[Ref], str]:
        """Name score ``k`` before the link: the trees combined as the model says (:meth:`Model.combined`:
        average; or a boosted sum in the order of operations of :meth:`Model.raw_sums`: from init (or 0,
        with ``init_last``), each tree's output times its weight, times the scale, added in tree order;
        then ``scale * sum + init`` (``init_last``) and the division by ``divisor``; in float32 every
        operation rounded)."""
        c, d, trees = self.model.combine, self.d, self.written
        if c.kind == CombineKind.SINGLE:
            return self.define(name, lambda ref: trees[0].value(k, ref), uses)
        shallow, vector = all(tree.number for tree in trees), self.vector
        if c.kind == CombineKind.AVERAGE:
            # a tree with fractional routes is a sum itself: added to the others as one term
            term = lambda tree, ref: tree.value(k, ref) if tree.exclusive else d.group.format(tree.value(k, ref))
            total, reads = self.summed(f"{name}_sum", lambda ref: term(trees[0], ref), trees[1:], term,
                                       lambda tree, node: vector(node)[k], uses, shallow)
            return self.define(name, lambda ref: f"{d.group.format(total(ref))} / {d.double(len(trees))}", reads)
        single = c.precision == Precision.FLOAT32
        step = arithmetic.f32 if single else float  # an operation's result, rounded as the model rounds it
        rounded = (lambda x: sql_arithmetic.float32(d, x)) if single else (lambda x: x)
        weighted = rounded if single else d.group.format  # the scale times (t * w), not (s * t) * w
        per_tree_scale = 1.0 if c.init_last else c.scale
        init = d.double(0.0) if c.init_last else d.double(step(c.init[k]))

        def term(tree: TreeSql, ref: Ref) -> str:
            out = d.group.format(tree.value(0 if tree.tree.output is not None else k, ref))
            if tree.tree.weight != 1.0:
                out = weighted(f"{out} * {d.double(tree.tree.weight)}")
            return rounded(f"{d.double(per_tree_scale)} * {out}") if per_tree_scale != 1.0 else out

        def node_term(tree: Tree, node: Node) -> float:  # term's arithmetic, done here: the same bits
            out = vector(node)[0 if tree.output is not None else k]
            if tree.weight != 1.0:
                out = step(out * tree.weight)
            return step(per_tree_scale * out) if per_tree_scale != 1.0 else out

        adding = [t for t in trees if t.tree.output in (None, k)]
        if self.stepped:
            return self._stepped_raw_score(name, k, init, adding, node_term, uses)
        total, reads = self.summed(f"{name}_sum", lambda ref: init, adding, term, node_term, uses, shallow,
                                   rounded if single else None)

        def finish(ref: Ref) -> str:
            out = total(ref)
            if c.init_last:
                out = rounded(f"{rounded(f'{d.double(c.scale)} * {d.group.format(out)}')} + {d.double(c.init[k])}")
            return rounded(f"{d.group.format(out)} / {d.double(c.divisor)}") if c.divisor != 1.0 else out
        return self.define(name, finish, reads)

    def round_step(self, name: str, fn: Callable[[Ref], str], uses, sum_of_two: bool = False) -> Callable[[Ref], str]:
        """Name ``fn``, computed in double, and give it back rounded to float32 as it is read: in an engine
        without a 4-byte float the rounding reads its operand up to six times
        (:func:`.arithmetic.float32_column`), so the operand must be a column, never an expression nested in
        another rounding (a chain of n would be written 3^n times). ``sum_of_two``: ``fn`` is the exact sum of
        two float32 of a model whose sums stay finite (:func:`treegen.model.scores_nan`): below the normal
        range it is a float32 already, it cannot overflow, and Veltkamp's splitting alone rounds it (3 reads)."""
        self.define(name, fn, uses)
        if sum_of_two and not self.nan_scores:
            return lambda ref: sql_arithmetic.float32_split(self.d, ref(name))
        return lambda ref: sql_arithmetic.float32_column(self.d, ref(name))

    def _stepped_raw_score(self, name: str, k: int, init: str, trees: list[TreeSql],
                           node_term: Callable[[Tree, Node], float], uses) -> Callable[[Ref], str]:
        """:meth:`define_raw_score` in float32 by :meth:`round_step`: ``u_j = f32(u_(j-1)) + term_j``, a named
        value a tree (the sum of two float32 is exact in double: rounding it once is float32's sum), each
        tree's term its output (a tree with fractional routes: their sum in double, as the model's), its
        weight and scale applied at its leaves (:meth:`Model.raw_sums`' arithmetic, done here) or, where a leaf
        is not one number, a step each; then the model's ``scale * sum + init`` and division, a step each."""
        c, d = self.model.combine, self.d
        scale = 1.0 if c.init_last else c.scale
        out, reads = (lambda ref: init), list(uses)
        for j, tree in enumerate(trees):
            step, kk = f"{name}_sum_{j}", 0 if tree.tree.output is not None else k
            term = lambda ref, t=tree, kk=kk: d.group.format(t.value(kk, ref))
            # a term that is a float32 (XGBoost's leaves are), added to one, needs no rounding below the normal range
            float32_term = tree.exclusive and all(node.linear is None and arithmetic.f32(value) == value
                                                  for node in tree.tree.nodes for value in [node_term(tree.tree, node)])
            if (tree.tree.weight != 1.0 or scale != 1.0) and tree.exclusive and tree.number is None and \
                    all(node.linear is None for node in tree.tree.nodes):
                term = lambda ref, t=tree: t.outcome(lambda n: d.double(node_term(t.tree, t.tree.nodes[n])), ref)
                reads = reads + list(uses)  # (an oblivious tree's outcome reads its levels' answers)
            else:
                term_reads = list(uses)
                for factor, kind in ((tree.tree.weight, "weighted"), (scale, "scaled")):
                    if factor != 1.0:
                        term = self.round_step(f"{name}_{kind}_{j}", lambda ref, t=term, f=factor:
                                               f"{t(ref)} * {d.double(f)}", term_reads)
                        term_reads = [f"{name}_{kind}_{j}"]
                        float32_term = True  # rounded
                reads = reads + term_reads
            out = self.round_step(step, lambda ref, before=out, term=term: f"{before(ref)} + {d.group.format(term(ref))}", reads,
                                  sum_of_two=float32_term)
            reads = [step]
        if c.init_last:
            out = self.round_step(f"{name}_scaled", lambda ref, o=out: f"{d.double(c.scale)} * {d.group.format(o(ref))}", reads)
            out = self.round_step(f"{name}_init", lambda ref, o=out: f"{o(ref)} + {d.double(c.init[k])}",
                                  [f"{name}_scaled"])
            reads = [f"{name}_init"]
        if c.divisor != 1.0:
            out = self.round_step(f"{name}_divided", lambda ref, o=out: f"{d.group.format(o(ref))} / {d.double(c.divisor)}", reads)
            reads = [f"{name}_divided"]
        return self.define(name, out, reads)

    def _stepped_link(self, raw: list[Callable[[Ref], str]]) -> None:
        """The float32 links of :meth:`_define_sigmoid` and :meth:`_define_softmax` (``expf`` for EXP) by
        :meth:`round_step`, each rounded operation a named value, in the same order of operations."""
        d, define, link, one = self.d, self.define, self.link(), self.d.double(1.0)
        expf = lambda x: sql_arithmetic.expf(d, x, self.nan_scores, rounded=False)
        if link == Link.EXP:
            for k, s in enumerate(raw):
                define(f"p{k}", self.round_step(f"e{k}", lambda ref, s=s: expf(s(ref)), [f"s{k}"]), [f"e{k}"])
        elif link == Link.EXP_DOUBLE:  # the float32 of C's exp in double (the rounding guards its overflow)
            for k, s in enumerate(raw):
                define(f"p{k}", self.round_step(f"e{k}", lambda ref, s=s: sql_arithmetic.exp(d, s(ref)), [f"s{k}"]),
                       [f"e{k}"])
        elif link == Link.SIGMOID:
            cap, tiny = d.double(arithmetic.f32(88.7)), d.double(arithmetic.f32(1e-16))
            number = (lambda x: f" AND {x} <= {d.infinity}") if self.nan_scores and d.infinity else (lambda x: "")
            names = [f"p{k}" for k in range(len(raw))] if len(raw) > 1 else ["p1"]
            for k, (s, name) in enumerate(zip(raw, names)):
                low = define(f"q{k}", lambda ref, s=s: f"CASE WHEN {cap} < -{s(ref)}{number(f'-{s(ref)}')} THEN {cap} "
                                                       f"ELSE -{s(ref)} END", [f"s{k}"])
                e = self.round_step(f"e{k}", lambda ref, low=low: expf(low(ref)), [f"q{k}"])
                plus = self.round_step(f"a{k}", lambda ref, e=e: f"{e(ref)} + {one}", [f"e{k}"])
                below = self.round_step(f"b{k}", lambda ref, plus=plus: f"{plus(ref)} + {tiny}", [f"a{k}"])
                define(name, self.round_step(f"c{k}", lambda ref, below=below: f"{one} / {below(ref)}", [f"b{k}"]),
                       [f"c{k}"])
            if len(raw) == 1:
                define("p0", self.round_step("r0", lambda ref: f"{one} - {ref('p1')}", ["p1"]), ["r0"])
        elif link == Link.SOFTMAX:
            names = [f"s{k}" for k in range(len(raw))]
            top = define("top", (lambda ref: raw[0](ref)) if len(raw) == 1 else
                         (lambda ref: f"{d.greatest}({', '.join(s(ref) for s in raw)})"), names)
            exps = []
            for k, s in enumerate(raw):  # expf reads its argument about ten times: a column
                gap = define(f"h{k}", self.round_step(f"g{k}", lambda ref, s=s: f"{s(ref)} - {top(ref)}",
                                                      [names[k], "top"]), [f"g{k}"])
                exps.append(self.round_step(f"e{k}", lambda ref, gap=gap: expf(gap(ref)), [f"h{k}"]))
            total = self.round_step("total", lambda ref: self.total([e(ref) for e in exps]),
                                    [f"e{k}" for k in range(len(exps))])
            for k, e in enumerate(exps):
                define(f"p{k}", self.round_step(f"c{k}", lambda ref, e=e: f"{e(ref)} / {total(ref)}",
                                                [f"e{k}", "total"]), [f"c{k}"])
        else:
            raise TreegenError(f"the SQL back end does not know the float32 link {link!r}")

    # -- named values: scores, probabilities, label ----------------------------------------

    def define(self, name: str, fn: Callable[[Ref], str], uses=()) -> Callable[[Ref], str]:
        """Name an intermediate value computed by ``fn`` from the named values ``uses``; what it returns
        reads the value through a ref."""
        self.definitions[name] = (fn, tuple(uses))
        return lambda ref: ref(name)

    def link(self) -> str:
        return self.model.combine.link if self.model.combine.kind == CombineKind.SUM else Link.IDENTITY

    def width(self) -> int:
        combine = self.model.combine
        return 2 if self.link() == Link.SIGMOID and len(combine.init) == 1 else self.model.target.width

    def score_ref(self, k: int) -> Callable[[Ref], str]:
        """The final score ``k`` (a probability for classification), defined on first use."""
        if not self._scores_defined:
            self._scores_defined = True
            self._define_scores()
        return lambda ref: ref(f"p{k}")

    def _define_scores(self) -> None:
        """``p0``, ``p1``, ...: the scores; for a link, first the raw sums ``s0``, ``s1``, ... (what
        :func:`treegen.model.apply_link` computes, step by step, each a named value)."""
        link, define = self.link(), self.define
        trees = [name for tree in self.written for name in tree.names()]
        if link == Link.IDENTITY:
            for k in range(self.width()):
                self.define_raw_score(f"p{k}", k, trees)
            if has_label_values(self.model):  # ``v0``, ``v1``, ...: the label sums, after the scores
                for k in range(self.width()):
                    self.define_raw_score(f"v{k}", self.width() + k, trees)
            return
        names = [f"s{k}" for k in range(len(self.model.combine.init))]
        raw = self._define_raw_sums()
        single = self.model.combine.precision == Precision.FLOAT32
        if link == Link.SIGN_SQUARE:  # in double whatever the sums' precision (treegen.model.apply_link)
            d = self.d
            sign = "CASE WHEN {0} > {zero} THEN {one} WHEN {0} < {zero} THEN -{one} ELSE {zero} END"
            for k, s in enumerate(raw):
                define(f"p{k}", lambda ref, s=s: f"{sign.format(s(ref), zero=d.double(0.0), one=d.double(1.0))} * {s(ref)} * {s(ref)}",
                       [names[k]])
        elif link == Link.STEP:  # no rounding: 1 or 0
            self._define_step(raw)
        elif link == Link.EXP_DOUBLE and not single:
            for k, s in enumerate(raw):
                define(f"p{k}", lambda ref, s=s: sql_arithmetic.exp(self.d, s(ref)), [names[k]])
        elif self.stepped:
            self._stepped_link(raw)
        elif link == Link.SIGMOID:
            self._define_sigmoid(raw, single)
        elif link == Link.SOFTMAX:
            self._define_softmax(raw, single)
        elif link == Link.EXP:
            exp = (lambda d, x: sql_arithmetic.expf(d, x, self.nan_scores)) if single else sql_arithmetic.exp
            for k, s in enumerate(raw):
                define(f"p{k}", lambda ref, s=s: exp(self.d, s(ref)), [names[k]])
        elif link == Link.EXP_DOUBLE:
            for k, s in enumerate(raw):
                define(f"p{k}", lambda ref, s=s: sql_arithmetic.exp_float32(self.d, s(ref), self.nan_scores),
                       [names[k]])
        else:
            raise TreegenError(f"the SQL back end does not know the link {link!r}")

    def _define_step(self, raw: list[Callable[[Ref], str]]) -> None:
        """XGBoost's binary:hinge: 1 where a raw sum is above 0, else 0 (NaN too: where NaN sorts above every
        number the test asks for a number); one sum: ``p1`` that, ``p0 = 1 - p1``."""
        d, zero, one = self.d, self.d.double(0.0), self.d.double(1.0)
        number = (lambda x: f" AND {x} <= {d.infinity}") if self.nan_scores and d.infinity else (lambda x: "")
        names = [f"p{k}" for k in range(len(raw))] if len(raw) > 1 else ["p1"]
        for k, (s, name) in enumerate(zip(raw, names)):
            self.define(name, lambda ref, s=s: f"CASE WHEN {s(ref)} > {zero}{number(s(ref))} THEN {one} "
                                               f"ELSE {zero} END", [f"s{k}"])
        if len(raw) == 1:
            self.define("p0", lambda ref: f"{one} - {ref('p1')}", ["p1"])

    def _define_raw_sums(self) -> list[Callable[[Ref], str]]:
        """``s0``, ``s1``, ...: a boosted model's raw sums, before its link."""
        trees = [name for tree in self.written for name in tree.names()]
        return [self.define_raw_score(f"s{k}", k, trees) for k in range(len(self.model.combine.init))]

    def _define_sigmoid(self, raw: list[Callable[[Ref], str]], single: bool) -> None:
        """One raw sum: ``p1`` its sigmoid, ``p0 = 1 - p1``; several: one sigmoid each. In double
        ``1 / (1 + exp(-link_scale * s))``; in float32 XGBoost's ``1 / (expf(min(-s, 88.7)) + 1 + 1e-16)``
        (:func:`treegen.arithmetic.sigmoid_f32`)."""
        d, define, one = self.d, self.define, self.d.double(1.0)
        f32 = lambda x: sql_arithmetic.float32(d, x)
        names = [f"p{k}" for k in range(len(raw))] if len(raw) > 1 else ["p1"]
        cap, tiny = d.double(arithmetic.f32(88.7)), d.double(arithmetic.f32(1e-16))
        scale = self.model.combine.link_scale
        for k, (s, name) in enumerate(zip(raw, names)):
            if single:  # min(-s, cap), NaN where s is NaN (cap < NaN would take cap where NaN sorts high; MySQL has
                # neither NaN nor infinity)
                number = (lambda x: f" AND {x} <= {d.infinity}") if self.nan_scores and d.infinity else (lambda x: "")
                low = define(f"q{k}", lambda ref, s=s: f"CASE WHEN {cap} < -{s(ref)}{number(f'-{s(ref)}')} THEN {cap} "
                                                       f"ELSE -{s(ref)} END", [f"s{k}"])
                e = define(f"e{k}", lambda ref, low=low: sql_arithmetic.expf(d, low(ref), self.nan_scores), [f"q{k}"])
                define(name, lambda ref, e=e: f32(one + " / " + f32(f32(f"{e(ref)} + {one}") + " + " + tiny)), [f"e{k}"])
                continue
            x = (lambda ref, s=s: s(ref)) if scale == 1.0 else (lambda ref, s=s: f"({d.double(scale)} * {s(ref)})")
            low = (lambda ref, x=x: f" WHEN {x(ref)} IS NOT NULL THEN") if self.null_scores else (lambda ref: " ELSE")
            define(name, lambda ref, x=x, low=low: (f"CASE WHEN {x(ref)} > {d.double(-709.0)} THEN {one} / ({one} + "
                                                    f"{self.exp('-' + x(ref))}){low(ref)} {d.double(0.0)} END"),
                   [f"s{k}"])
        if len(raw) == 1:
            p0 = (lambda ref: f32(f"{one} - {ref('p1')}")) if single else (lambda ref: f"{one} - {ref('p1')}")
            define("p0", p0, ["p1"])

    def _define_softmax(self, raw: list[Callable[[Ref], str]], single: bool) -> None:
        """The maximum subtracted, the exp of each, their sum in order, each divided by the sum; in
        float32 XGBoost's (:func:`treegen.arithmetic.softmax_f32`): float32 differences, ``expf``,
        the sum in double rounded once to float32, float32 quotients."""
        d, define = self.d, self.define
        f32 = lambda x: sql_arithmetic.float32(d, x)
        names = [f"s{k}" for k in range(len(raw))]
        # one sum (a classifier of one class) is its own maximum: GREATEST takes two or more (SQLite's MAX of one
        # is the aggregate, a single row)
        top = define("top", (lambda ref: raw[0](ref)) if len(raw) == 1 else
                     (lambda ref: f"{d.greatest}({', '.join(s(ref) for s in raw)})"), names)
        if single:
            gaps = [define(f"g{k}", lambda ref, s=s: f32(f"{s(ref)} - {top(ref)}"), [names[k], "top"]) for k, s in enumerate(raw)]
            exps = [define(f"e{k}", lambda ref, g=g: sql_arithmetic.expf(d, g(ref), self.nan_scores), [f"g{k}"])
                    for k, g in enumerate(gaps)]
        else:
            exps = [define(f"e{k}", lambda ref, s=s: self.exp(f"{s(ref)} - {top(ref)}"), [names[k], "top"])
                    for k, s in enumerate(raw)]
        total = define("total", lambda ref: self.total([e(ref) for e in exps]), [f"e{k}" for k in range(len(exps))])
        divisor = define("divisor", lambda ref: f32(total(ref)), ["total"]) if single else total
        for k, e in enumerate(exps):
            quotient = (lambda ref, e=e: f32(f"{e(ref)} / {divisor(ref)}")) if single else \
                (lambda ref, e=e: f"{e(ref)} / {divisor(ref)}")
            define(f"p{k}", quotient, [f"e{k}", "divisor" if single else "total"])

    def exp(self, x: str) -> str:
        """``EXP(x)``, 0 where it underflows (PostgreSQL raises an error there instead)."""
        return f"CASE WHEN {x} < {self.d.double(-745.0)} THEN {self.d.double(0.0)} ELSE EXP({x}) END"

    def decision(self) -> Decision:
        return label_decision(self.model)[0]

    def prediction(self, proba: bool) -> Callable[[Ref], str]:
        model = self.model
        single = model.combine.kind == CombineKind.SINGLE and self.exclusive[0]
        if single and not proba:  # one CASE that gives the answer itself
            tree, nodes = self.written[0], model.trees[0].nodes
            if not model.target.is_classification:
                return lambda ref: tree.value(0, ref)
            labels = [self.d.string(label) for label in model.target.classes]
            chosen = lambda n: decide(self.decision(), nodes[n].deciding_value, nodes[n].deciding_value)
            if self.d.pick is None:  # (the dialects that walk trees have one)
                return lambda ref: tree.outcome(lambda n: labels[chosen(n)], ref)
            # the label's number at the leaves, the label itself looked up once (1.1-1.4x in DuckDB)
            number = lambda n: chosen(n) + 1
            return lambda ref: self.d.pick.format(items=", ".join(labels),
                                                  index=tree.outcome(lambda n: str(number(n)), ref, (number, "INT")))
        raw_alone = label_cut(model) is not None and not proba  # XGBoost's, LightGBM's label on its raw sum: no link
        scores = [] if raw_alone else [self.score_ref(k) for k in range(self.width())]
        if raw_alone:
            self._define_raw_sums()
        if not model.target.is_classification:
            return scores[0]
        labels = [self.d.string(label) for label in model.target.classes]
        scored = [f"{'v' if has_label_values(model) else 'p'}{k}" for k in range(self.width())]  # what decides
        raw = [f"s{k}" for k in range(len(model.combine.init))] if self.link() != Link.IDENTITY else scored
        decision = self.decision()
        if decision in (Decision.RAW_NONNEGATIVE, Decision.RAW_POSITIVE):  # the raw sum's sign
            test = ">=" if decision == Decision.RAW_NONNEGATIVE else ">"
            cut = label_cut(model)  # a binary label on the raw sum (common.label_decision): a NaN sum is class 0, and
            # where NaN sorts above every number (not SQLite's NULL, which passes no test), it passes this one
            nan_high = self.nan_scores and self.d.infinity is not None  # (MySQL holds no NaN)
            number = (lambda x: f" AND {x} <= {self.d.infinity}") if nan_high else (lambda x: "")
            cut = self.d.double(cut or 0.0)
            return lambda ref: (f"CASE WHEN {ref(raw[0])} {test} {cut}{number(ref(raw[0]))} THEN {labels[1]} "
                                f"ELSE {labels[0]} END")
        if decision == Decision.WEKA:
            return self.weka(scored)
        deciding = raw if decision == Decision.ARGMAX_RAW else scored
        return lambda ref: self.argmax([ref(name) for name in deciding], decision != Decision.ARGMAX_RAW)

    def argmax(self, scores: list[str], nan_wins: bool = True) -> str:
        """The label of the highest score, the first on ties; where a score is NaN, the first NaN's
        (:func:`treegen.model.argmax`): where NaN sorts above every number, ``NaN >= x`` holds and ``x >= NaN``
        does not; a NULL score (SQLite's NaN) is tested first, in class order (the last one passes no other
        test). Not ``nan_wins``: a NaN never passes (:func:`treegen.model.max_index`), tested as NULL or as
        above infinity (only NaN is) where a score can be NaN."""
        d, labels = self.d, [self.d.string(label) for label in self.model.target.classes]
        if len(scores) == 1:  # a classifier that saw one class: its label, whatever the score (a CASE needs a WHEN)
            return labels[0]
        later = lambda i, test: " AND ".join(test(scores[i], scores[j]) for j in range(i + 1, len(scores)))
        if nan_wins or not self.nan_scores or not (d.nan_is_null or d.infinity):
            branches = [(later(i, lambda a, b: f"{a} >= {b}"), labels[i]) for i in range(len(scores) - 1)]
            if self.null_scores:
                branches[:0] = [(f"{scores[i]} IS NULL", labels[i]) for i in range(len(scores) - 1)]
        else:
            nan = (lambda x: f"{x} IS NULL") if d.nan_is_null else (lambda x: f"{x} > {d.infinity}")
            number = (lambda x: f"{x} IS NOT NULL") if d.nan_is_null else (lambda x: f"{x} <= {d.infinity}")
            branches = [(nan(scores[0]), labels[0])] + [
                (f"{number(scores[i])} AND {later(i, lambda a, b: f'({a} >= {b} OR {nan(b)})')}", labels[i])
                for i in range(len(scores) - 1)]
        return render("sql", "case.sql.j2", branches=branches, otherwise=labels[-1])

    def weka(self, scores: list[str]) -> Callable[[Ref], str]:
        """Weka's label (:func:`treegen.model.weka_argmax`): class by class, the best so far is passed
        only by a score higher by more than 1e-6; the best score and label so far are named values."""
        d, define, labels = self.d, self.define, self.model.target.classes
        margin = d.double(1e-6)
        # two infinite scores differ by NaN, which these engines take as greater than any number
        not_nan = (lambda diff: f" AND {diff} <> {d.nan}") if d.nan else (lambda diff: "")
        best, label = (lambda ref: ref(scores[0])), (lambda ref: d.string(labels[0]))
        for i in range(1, len(scores)):
            passes = lambda ref, i=i, best=best: (f"{ref(scores[i])} - {best(ref)} > {margin}"
                                                  f"{not_nan(f'{ref(scores[i])} - {best(ref)}')}")
            uses = [scores[i]] + ([f"wv{i - 1}", f"wl{i - 1}"] if i > 1 else [scores[0]])
            label = define(f"wl{i}", lambda ref, i=i, passes=passes, label=label:
                           f"CASE WHEN {passes(ref)} THEN {d.string(labels[i])} ELSE {label(ref)} END", uses)
            best = define(f"wv{i}", lambda ref, i=i, passes=passes, best=best:
                          f"CASE WHEN {passes(ref)} THEN {ref(scores[i])} ELSE {best(ref)} END", uses)
        return label

    def leaf(self) -> Callable[[Ref], str]:
        """The leaf column (:func:`treegen.model.leaf_ids`): per tree, the ids of the nodes where the
        row ended with a weight above zero, in node order, joined by ``|``; trees joined by ``;``."""
        return lambda ref: self.joined([tree.leaf(ref) for tree in self.written])

    def joined(self, ids: list[str]) -> str:
        """One tree's leaf id(s), or those of several joined with ``;``."""
        if len(ids) == 1:
            return ids[0]
        pieces = [self.d.cast(ids[0], self.d.cast_text)]
        for case in ids[1:]:
            pieces += ["';'", self.d.cast(case, self.d.cast_text)]
        return self.concat(pieces)

    def concat(self, pieces: list[str]) -> str:
        """The texts one after the other, concatenated pairwise as a balanced tree: the expression
        nests log2(len(pieces)) deep, within every engine's limit however many trees or leaves."""
        while len(pieces) > 1:
            pieces = [self.d.concat.format(*pieces[i:i + 2]) if i + 1 < len(pieces) else pieces[i]
                      for i in range(0, len(pieces), 2)]
        return pieces[0]

    def output_names(self) -> tuple[str, list[str], str]:
        """The output columns' names, beside the features' in the result: ``prediction``, the class
        probabilities' (the labels) and ``leaf``, each made legal and, as the engine folds names, unique
        (``prediction_2`` for a model with a feature named prediction)."""
        labels = [label.replace("\0", "") or "class" for label in self.model.target.classes]
        features = [f.name for f in self.model.features]
        spelt = lambda base, suffix: _cut(base, self.d, suffix)
        prediction, leaf, *classes = free_names(["prediction", "leaf", *labels], features, self.d.folded, spelt)
        return prediction, classes, leaf

    # -- assembling --------------------------------------------------------------------

    def inline(self, name: str) -> str:
        if name not in self._inlined:
            self._inlined[name] = self.d.group.format(self.definitions[name][0](self.inline))
        return self._inlined[name]

    def inlined_length(self, text: Callable[[Ref], str]) -> int:
        """The length of ``text`` with every named value inlined (:meth:`inline`), counted without writing it:
        a value read k times is written k times, so a multiclass ensemble's expression can run to gigabytes."""
        written = text(lambda name: f"\0{name}\0")  # a text may read a name once and write it twice
        length = len(written)
        for name in set(re.findall("\0([^\0]*)\0", written)):
            if name not in self._lengths:
                self._lengths[name] = len(self.d.group.format("")) + self.inlined_length(self.definitions[name][0])
            length += written.count(f"\0{name}\0") * (self._lengths[name] - len(name) - 2)
        return length

    def check_inlined_length(self, text: Callable[[Ref], str]) -> None:
        """Refuse, before writing it, an expression longer than the engine reads (counted only where the
        dialect has a limit: the count writes each named value once more)."""
        limit = self.d.sql_length
        if limit and (length := self.inlined_length(text) + self.row_length) > limit:
            raise TreegenError(f"{self.d.name}: the expression would be {length:,} bytes, more than the engine reads "
                               f"({limit:,}): it writes each shared value (a sum, a class's score) wherever it is "
                               f"read; the query (without --expression) computes each once")

    def column(self, name: str) -> str:
        """An internal column or variable name, which no feature's name can hide."""
        return self.d.identifier(self.prefix + name)

    def strings(self, values) -> str:
        return ", ".join(self.d.string(v) for v in values)

    def stages(self) -> list[list[str]]:
        """The named values grouped by step: each needs only values of earlier steps."""
        depth: dict[str, int] = {}
        for name, (_, uses) in self.definitions.items():  # definitions come after what they use
            depth[name] = 1 + max((depth[u] for u in uses), default=0)
        steps = [[] for _ in range(max(depth.values(), default=0))]
        for name, step in depth.items():
            steps[step - 1].append(name)
        return steps

    def fitted(self, text: Callable[[Ref], str], tables: int = 0, inlined: bool | None = None) -> str:
        """``text(ref)``, a SELECT's column inside ``tables`` derived tables (``ref``: :meth:`column`; in
        expression mode :meth:`inline`), with its trees' CASEs nested less deep where the engine's parser
        would overflow (``Dialect.parser_depth``; a CASE level takes 4 to 6 entries): SQLite's stack holds
        the derived tables and every CASE, function and operator around the deepest test. A column that
        fits at the dialect's ``nesting`` is written at it; else at the deepest nesting that SQLite's own
        parser reads (``ask_sqlite``: :meth:`_parsed`), or that :func:`.depth.depth` measures to fit
        (:meth:`_measured`). ``inlined``: whether named values are written inline (default: in expression mode,
        :attr:`inlines`)."""
        inlined = self.inlines if inlined is None else inlined
        ref = self.inline if inlined else self.column
        if inlined:
            self.check_inlined_length(text)
        if self.d.parser_depth is None or not self.fit:
            return text(ref)
        written = self._parsed(text, ref, tables) if self.ask_sqlite else self._measured(text, ref, tables)
        self.nesting = self.d.nesting
        return written

    def _parsed(self, text: Callable[[Ref], str], ref: Ref, tables: int) -> str:
        """The column at the deepest nesting SQLite's parser stack holds (:func:`.depth.sqlite_stack_holds`),
        found by bisection. A step's columns are alike (a sum of trees per class) but not the same: after a
        column that needed less, the next one first tries the levels around the one it needed (two or three
        writes of the column, where bisection takes five)."""
        def tried(nesting: int) -> str | None:
            self.nesting = nesting
            self._inlined.clear()
            written = text(ref)
            return written if sqlite_stack_holds(written, tables) else None

        low, high, best = -1, self.d.nesting + 1, None  # the deepest nesting known to parse, the shallowest not
        near = [] if self.needed is None else [self.needed + 1, self.needed, self.needed + 2, self.needed - 1]
        guesses = near + [self.d.nesting]
        while high - low > 1:
            nesting = next((n for n in guesses if low < n < high), (low + high) // 2)
            if (written := tried(nesting)) is None:
                high = nesting
            else:
                low, best = nesting, written
        if best is None:
            raise TreegenError(f"{self.d.name}: the SQL is deeper than the engine's parser reads "
                               f"(SQLite's parser stack overflows with every tree a flat CASE)")
        if low < self.d.nesting:
            self.needed = low
        return best

    def _measured(self, text: Callable[[Ref], str], ref: Ref, tables: int) -> str:
        """The column at a nesting whose stack entries :func:`.depth.depth` counts within the dialect's
        ``parser_depth``: a level less for each 6 entries too many."""
        # an inlined value is measured once, as a stand-in as deep as it (a softmax inlines each tree ~20 times)
        inlined = ref == self.inline
        probe = self.stand_in if inlined else ref
        room = self.d.parser_depth - DERIVED_TABLE * tables
        while (excess := depth(written := text(probe)) - room) > 0:
            if self.nesting == 0:
                raise TreegenError(f"{self.d.name}: the SQL is deeper than the engine's parser reads "
                                   f"({excess} stack entries too many, with every tree a flat CASE)")
            self.nesting = max(0, self.nesting - max(1, excess // 6))
            self._inlined.clear()
            self._depths.clear()
        if inlined:
            written = text(ref)
        return written

    def stand_in(self, name: str) -> str:
        """A token that :func:`.depth.depth` reads as deep as the named value inlined (:meth:`inline`)."""
        if name not in self._depths:
            self._depths[name] = depth("(" + self.definitions[name][0](self.stand_in) + ")")
        return f"@{self._depths[name]}@"

    def query(self, source: str, outputs) -> str:
        """The SELECT of the ``outputs`` from ``source``, the quoted input table (:meth:`Dialect.table`)."""
        stages, source = self.stages(), self.converted(source)
        if self.stepped and stages:  # (a single tree has no steps: a WITH of none is no SQL)
            return self.query_with(self.with_tuples(source, 2), stages, outputs)
        source = self.with_tuples(source, len(stages) + 1)
        for n, names in enumerate(stages):
            alias = self.column(f"t{n}")
            around = len(stages) - n  # the later steps' derived tables and the last SELECT's
            named = [lambda ref, name=name: f"{self.definitions[name][0](ref)} AS {self.column(name)}"
                     for name in names]
            items = [f"{alias}.*"] + [self.fitted(text, around) for text in named]
            step = render("sql", "select.sql.j2", items=items, source=source, alias=alias, end=self.d.kept_apart)
            source = f"({step})"
        _check_kept(self.kept, self.model, self.d, [name for name, _ in outputs])
        kept = [self.d.identifier(name) for name in self.kept]  # passed through every derived table's .*
        named = [lambda ref, fn=fn, name=name: f"{fn(ref)} AS {self.d.identifier(name)}" for name, fn in outputs]
        items = kept + self.passed() + [self.fitted(text) for text in named]
        return render("sql", "select.sql.j2", items=items, source=source, alias=self.column("input"), end="") + "\n"

    def passed(self) -> list[str]:
        """The features' columns as the SELECT passes them through, each under its own name."""
        return [column if value == column else f"{value} AS {column}"
                for column, value in zip(self.columns, self.values)]

    def query_with(self, source: str, stages: list[list[str]], outputs) -> str:
        """:meth:`query` with each step a common table expression reading the one before (:meth:`with_steps`): a
        float32 sum in SQLite is a step a tree, hundreds, where nested derived tables would overflow the parser's
        stack."""
        carried = ([self.d.identifier(name) for name in self.kept] + self.values
                   + [name for name in self.row_reads if name not in self.values]
                   + [self.column(name) for name in self.tuple_names.values()])
        steps, source = self.with_steps(stages, [fn for _, fn in outputs], carried, source, 1)
        _check_kept(self.kept, self.model, self.d, [name for name, _ in outputs])
        kept = [self.d.identifier(name) for name in self.kept]
        named = [lambda ref, fn=fn, name=name: f"{fn(ref)} AS {self.d.identifier(name)}" for name, fn in outputs]
        items = kept + self.passed() + [self.fitted(text, 1) for text in named]
        last = render("sql", "select.sql.j2", items=items, source=source, alias=self.column("input"), end="")
        return "WITH " + ",\n".join(steps) + "\n" + last + "\n"

    def with_steps(self, stages: list[list[str]], outputs: list[Callable[[Ref], str]], carried: list[str],
                   source: str | None, tables: int) -> tuple[list[str], str]:
        """The ``WITH``'s steps that compute ``stages`` for ``outputs``, each ``name AS (SELECT ...)`` reading the
        one before (the first ``source``; None: no table, the columns a correlated subquery reads are the outer
        row's), passing on ``carried`` columns; and the last step's name. Each ends with ``kept_apart``, else
        SQLite merges them and copies each step's expression wherever it is read. A step passes on only the values
        read later (a partial sum is read by the next step alone): ``.*`` would carry every earlier one through
        every step, quadratic in the trees. ``tables``: how deep a step's columns are (:meth:`fitted`)."""
        steps, read_by_outputs = [], set()
        for fn in outputs:
            fn(lambda name: read_by_outputs.add(name) or name)
        last_read = {name: len(stages) for name in read_by_outputs}  # the step that reads a value last
        for n, names in enumerate(stages):
            for name in names:
                for used in self.definitions[name][1]:
                    last_read[used] = max(last_read.get(used, n), n)
        for n, names in enumerate(stages):
            alias = self.column(f"t{n}")
            named = [lambda ref, name=name: f"{self.definitions[name][0](ref)} AS {self.column(name)}"
                     for name in names]
            before = [name for step in stages[:n] for name in step if last_read.get(name, -1) > n]
            passed = [f"{alias}.{column}" for column in carried + [self.column(name) for name in before]]
            items = passed + [self.fitted(text, tables, inlined=False) for text in named]
            step = render("sql", "select.sql.j2", items=items, source=source, alias=alias, end=self.d.kept_apart)
            steps.append(f"{self.column(f'step{n}')} AS (\n{step}\n)")
            source = self.column(f"step{n}")
        return steps, source

    def item(self, fn: Callable[[Ref], str], name: str | None = None) -> str:
        """One output of an expression (``name``: with ``AS name``), its named values written inline, or a
        correlated scalar subquery of the query's own steps (:meth:`with_steps`), those it reads alone, each
        step kept apart, where the dialect can (``correlated_steps``) and either they are float32 steps that
        must stay named values (SQLite's, :meth:`round_step`) or, in a float32 model, inlining them would at
        least double the output's text (``expf`` reads its argument about ten times: a softmax's class scores
        read every sum). Its features are the outer row's columns, which no step's column (:meth:`column`)
        hides. SQLite refuses a subquery in a generated column or an index: such an expression is for a
        SELECT's list or a view. Where the dialect has lambdas instead (``binding``), an output of any model
        whose text inlining would double binds the steps it reads to lambdas' variables (:meth:`bound`)."""
        alias = f" AS {self.d.identifier(name)}" if name is not None else ""
        float32 = self.model.combine.precision == Precision.FLOAT32
        subquery = self.expression and float32 and self.d.correlated_steps
        reads = self.reads_of(fn) if subquery or self.expression and self.d.binding else set()
        around = 1 if self.row_subquery else 0  # the subquery of the row's columns as the model reads them
        if not reads or not self.stepped and self.inlined_length(fn) < 2 * self.named_length(fn, reads):
            return self.read_once(self.fitted(fn, around)) + alias
        stages = [kept for names in self.stages() if (kept := [n for n in names if n in reads])]
        if not subquery:
            return self.read_once(self.bound(fn, stages)) + alias
        steps, source = self.with_steps(stages, [fn], [], None, SUBQUERY_STEP + around)
        last = render("sql", "select.sql.j2", items=[self.fitted(fn, SUBQUERY_STEP - 1 + around, inlined=False)],
                      source=source, alias=self.column("input"), end="")
        return self.read_once("(WITH " + ",\n".join(steps) + "\n" + last + ")") + alias

    @functools.cached_property
    def row_length(self) -> int:
        """How much longer :meth:`read_once` makes an expression."""
        return len(self.read_once(""))

    def read_once(self, expression: str) -> str:
        """An expression's output reading each feature's column as the model reads it (:attr:`conversions`) once:
        a scalar subquery over a derived table of the outer row's columns so read, under their own names (read
        where each test reads the column, the LightGBM regression fixture's expression was 75 KB instead of 8 KB;
        a float32 model's, whose steps read them too, 1.6 MB); where the dialect has lambdas instead, the body of
        one whose variable holds them (:attr:`row_bound`: a DuckDB expression of the XGBoost fixture of codes,
        reading its category at each test, was 4.6 times the query's text). Each tuple split's answer is computed
        once a row there too, as a query's are (:meth:`tuple_test`): in the subquery's derived tables
        (:meth:`with_tuples`), or bound to two lambdas' variables, the digits' and the answers'."""
        if self.d.binding:
            variables = {"row": self.row_bound}
            if self.tuple_names:
                variables["digits"], variables["tuples"] = self.tuple_values(
                    lambda f: f"{self.column('digits')}.{self.prefix}digit{f}")
            binding = self.d.binding
            for variable, values in reversed(variables.items()):  # (each reads those before it)
                if values:
                    items = ", ".join(binding.item.format(self.prefix + name, text) for name, text in values.items())
                    expression = binding.bind.format(items=items, name=self.column(variable), body=expression)
            return expression
        if not self.row_subquery:
            return expression
        items = [f"{text} AS {name}" for name, text in self.row_reads.items()] or [f"1 AS {self.column('one')}"]
        row = render("sql", "select.sql.j2", items=items, source=None, alias=None, end="")
        return f"(SELECT {expression} FROM {self.with_tuples(f'({row})', SUBQUERY_STEP)} AS {self.column('row')})"

    @functools.cached_property
    def row_subquery(self) -> bool:
        """Whether an expression's output is a scalar subquery of the row (:meth:`read_once`)."""
        return bool(self.row_reads) or bool(self.tuple_names) and self.d.correlated_steps

    def bound(self, fn: Callable[[Ref], str], stages: list[list[str]]) -> str:
        """``fn`` with the named values of ``stages`` each computed once (``Dialect.binding``): each step's values a
        record bound to a lambda's variable, the next step the lambda's body, ``fn`` the innermost body. A value
        is read as its record's field (:meth:`column`'s name unquoted: a prefix and a value's name, letters, digits
        and ``_``); the features are the row's columns, which no variable (:meth:`column`) hides."""
        binding, step = self.d.binding, {name: n for n, names in enumerate(stages) for name in names}
        variable = lambda n: self.column(f"step{n}")
        ref = lambda name: f"{variable(step[name])}.{self.prefix}{name}"
        body = fn(ref)
        for n in reversed(range(len(stages))):
            items = ", ".join(binding.item.format(self.prefix + name, self.definitions[name][0](ref))
                              for name in stages[n])
            body = binding.bind.format(items=items, name=variable(n), body=body)
        return body

    def named_length(self, fn: Callable[[Ref], str], reads: set[str]) -> int:
        """The length of ``fn`` and of each named value it reads, written once each (the steps of :meth:`item`)."""
        return len(fn(self.column)) + sum(len(self.definitions[name][0](self.column)) for name in reads)

    def reads_of(self, fn: Callable[[Ref], str]) -> set[str]:
        """The named values ``fn`` reads, and those they read, and so on."""
        reads, new = set(), []
        fn(lambda name: new.append(name) or name)
        while new:
            name = new.pop()
            if name not in reads:
                reads.add(name)
                new.extend(self.definitions[name][1])
        return reads


def split_points(model: Model) -> dict[int, list[float] | None]:
    """Per feature, the magnitudes of the points where the model's reading of it changes (its splits' cuts, its
    missing interval's ends), where a number read up to an ulp off could cross one
    (:func:`.dialects.sqlite_number_text`); None where the feature's value is used in arithmetic (a linear leaf's),
    where any misread counts."""
    in_arithmetic = {f for tree in model.trees for node in tree.nodes if node.linear is not None
                     for f, _ in node.linear.terms}
    return {i: None if i in in_arithmetic else cuts for i, cuts in split_cuts(model).items()}


def split_cuts(model: Model) -> dict[int, list[float]]:
    """Per feature, :func:`split_points` of the splits alone, its value used in arithmetic or not: all features in
    one pass over the nodes (a feature at a time, a 1,000-feature forest's MySQL expression took 4.5 times as long)."""
    cuts = {i: {abs(end) for end in f.missing_interval or ()} for i, f in enumerate(model.features)}
    for tree in model.trees:
        for node in tree.nodes:
            for split in () if node.split is None else (node.split, *node.split.parts):  # (a tuple split's parts)
                if split.op == Op.LE:
                    cuts[split.feature].add(abs(model.numeric.effective_threshold(split.threshold)))
    return {i: sorted(x for x in found if math.isfinite(x)) for i, found in cuts.items()}


def _tuple_names(model: Model) -> dict:
    """Each distinct tuple split of the model (equal splits of several trees are one) -> its answer's name."""
    splits = dict.fromkeys(node.split for tree in model.trees for node in tree.nodes
                           if node.split is not None and node.split.op is Op.TUPLE)
    return {split: f"tuple{n}" for n, split in enumerate(splits)}


def _apart(c: Condition) -> bool:
    """Missing values and unknown categories have different factors in the condition."""
    return c.if_unknown is not None and c.if_unknown != c.if_missing


def _ends(tree) -> list[int]:
    """The nodes where a row's evaluation can end, in node order: the leaves, and the splits where a
    missing value stops."""
    return [n for n, node in enumerate(tree.nodes) if node.is_leaf or node.split.missing.kind == Route.STOP]


def _first_taker(writer: Writer, index: int, strategies: list[type[TreeSql]]) -> type[TreeSql]:
    for strategy in strategies:
        if strategy.takes(writer, index):
            return strategy
    raise TreegenError(f"{writer.d.name}: no way to write tree {index} in SQL")  # a dialect row without "rules"


def _check_names(model: Model, d: Dialect) -> None:
    """Refuse, before any engine sees them, feature names the dialect cannot hold as distinct columns."""
    seen = {}
    for feature in model.features:
        key = d.folded(feature.name)
        if key in seen:
            raise TreegenError(f"{d.name}: the features {seen[key]!r} and {feature.name!r} would be the same column")
        seen[key] = feature.name
        _check_length(feature.name, "the feature name", d)


def _check_length(name: str, what: str, d: Dialect) -> None:
    if d.name_limit and d.name_length(name) > d.name_limit:
        unit = "characters" if d.name_in_characters else "bytes"
        raise TreegenError(f"{d.name}: {what} {name!r} is longer than {d.name_limit} {unit}")


def _check_kept(kept: tuple[str, ...], model: Model, d: Dialect, outputs: list[str]) -> None:
    """Refuse a kept column the result already has (a feature, an output column: the same name as the
    engine folds it), or that the dialect cannot name."""
    taken = {d.folded(f.name): f"is the feature {f.name!r}, in the result already" for f in model.features}
    taken.update((d.folded(name), f"would be the same column as the output column {name!r}") for name in outputs)
    for name in kept:
        if d.folded(name) in taken:
            raise TreegenError(f"{d.name}: --keep {name!r} {taken[d.folded(name)]}")
        taken[d.folded(name)] = "is named twice"
        _check_length(name, "the kept column", d)
        if d.renamed_in_tables and re.fullmatch(d.renamed_in_tables, name):  # (passed through by its own name)
            raise TreegenError(f"{d.name}: --keep {name!r}: the engine renames such a column in a derived table "
                               "('columnN'), which the query passes it through")


def _free_prefix(names: list[str], d: Dialect) -> str:
    """A prefix for internal column names that no column name (a feature's, a kept one's) starts with."""
    prefix = "treegen_"
    while any(d.folded(name).startswith(prefix) for name in names):
        prefix = "_" + prefix
    return prefix


def _cut(name: str, d: Dialect, suffix: str = "") -> str:
    """``name + suffix`` within the dialect's ``name_limit``, cutting ``name`` at a character boundary."""
    if d.name_limit is None:
        return name + suffix
    room = d.name_limit - d.name_length(suffix)
    if d.name_in_characters:
        return name[:room] + suffix
    return name.encode()[:room].decode(errors="ignore") + suffix
