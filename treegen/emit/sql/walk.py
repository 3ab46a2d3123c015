"""A big tree as data -- its nodes' features, cuts and children as arrays (each one string literal
cast to an array) -- and a loop (Spark: ``aggregate`` over ``sequence(1, depth)``; DuckDB:
``list_reduce`` over ``range(depth)``) that moves the row one level down per step; a nominal value is
looked up by its category's position. The dialect's row (``Dialect.arrays``) spells the functions.
With fractional routes (Spark only) the loop carries the weighted entries still on their way and those
that ended, which are then added up with J48's arithmetic (:meth:`ArrayWalk.weighted_walk`).

Spark SQL: a nested CASE of 1,000 leaves is beyond Janino's 64 KB a method (Spark falls back to slow
interpreted evaluation) and one of 5,000 fills a 1 GB driver heap in the parser; the walk runs 50,000
leaves. Every tree is walked once the model has more nodes than ``walk_model_nodes`` (100 trees of
100 nodes as nested CASEs fill Spark's heap as one big tree does). The trees without fractional
routes are walked together, in one loop over one set of arrays (Spark generates the code of a walk
once, not once a tree: a walk a tree passed Janino's 64 KB a method from about 30 trees, and Spark
then ran the query without its whole-stage code); one with fractional routes is walked alone. An
output's sum reads its trees' terms as one array, a slice of the walks (:meth:`ArrayWalk.together`).

DuckDB: planning a nested CASE costs about 0.1 ms a node (13 s for 50,000 leaves), a walk about 2 us
a row more than the CASE; a tree of more than ``walk_tree_nodes`` nodes is walked (exclusive trees).

A full query computes the walks once, in a derived table, for every output to read, after one that
puts the row's numeric features in an array once.
"""
from __future__ import annotations

from typing import Callable

from ...model import MissingRoute, Model, Node, Op, Route, Tree, child_for
from .writer import Ref, TreeSql, Writer


class ArrayWalk(TreeSql):
    """The tree walked as arrays; its end (a node, or the totals of a weighted walk) is a named value."""

    def __init__(self, writer: Writer, index: int):
        super().__init__(writer, index)
        self.name = f"w{index}"
        numeric = _numeric(writer.model)
        if numeric and VALUES not in writer.definitions:  # the row's numeric features, one array a row
            writer.define(VALUES, lambda ref: self.d.arrays.of.format(", ".join(writer.reads[f] for f in numeric)))
        reads = (VALUES,) if numeric else ()
        forest = _forest(writer)
        if index not in forest:
            writer.define(self.name, self.walk, uses=reads)
            return
        if FOREST not in writer.definitions:
            writer.define(FOREST, lambda ref: self.forest_walk(forest, ref), uses=reads)
        place, before = forest[index]  # the node the forest's walk reached in this tree, counted from 1 in it
        shift = f" - {before}" if before else ""
        writer.define(self.name, lambda ref: self.at(ref(FOREST), str(place)) + shift, uses=(FOREST,))

    @staticmethod
    def takes(writer: Writer, index: int) -> bool:
        d, tree = writer.d, writer.model.trees[index]
        every_tree = d.walk_model_nodes is not None and writer.nodes > d.walk_model_nodes
        big = d.walk_tree_nodes is not None and len(tree.nodes) > d.walk_tree_nodes or every_tree
        linear = any(node.linear is not None for node in tree.nodes)  # its arrays hold values, not sums
        # a lone leaf only among trees walked together, where it keeps its output's trees side by side
        lone_leaf = len(tree.nodes) == 1 and (writer.expression or not every_tree)
        return (big and not linear and not lone_leaf and _walkable(writer.model, tree) and not _has_unknown_routes(tree)
                and (d.arrays.weighted or writer.exclusive[index]))

    def names(self) -> tuple[str, ...]:
        return (self.name,)

    def outcome(self, then: Callable[[int], str], ref: Ref, numbers=None) -> str:
        """The number (``numbers``: node id -> number, its SQL type) of the node an exclusive walk
        reached, looked up in an array written as one string, rather than a literal per node."""
        number, sql_type = numbers
        return self.at(self.d.array_of([number(i) for i in range(len(self.tree.nodes))], sql_type), ref(self.name))

    def value(self, k: int, ref: Ref) -> str:
        if self.exclusive:
            return super().value(k, ref)
        return self.at(f"{ref(self.name)}.t", str(k + 1))  # the walk has added it up

    def leaf(self, ref: Ref) -> str:
        if self.exclusive:
            return super().leaf(ref)
        return self.d.drop_first.format(f"{ref(self.name)}.leaf")  # "|" before each id

    def at(self, array: str, index: str) -> str:
        """The element at ``index`` (from 1) of ``array``."""
        return self.d.arrays.at.format(array, index)

    def walk(self, ref: Ref) -> str:
        """Arrays of the tree's nodes' features, cuts and children, and a loop (Spark's ``aggregate``
        over ``sequence``) that moves a row down one level per step, as many steps as the tree is
        deep. Leaves, and nodes where a missing value stops, lead to themselves, so extra steps change
        nothing. Neither the text nor the generated code grows with the tree's nesting (a big nested
        CASE is beyond Janino's 64 KB a method), and each array is one string literal cast to an array
        (a literal per node fills the parser's heap). An exclusive tree's walk ends at one node
        (counted from 1); with fractional routes, see :meth:`weighted_walk`.

        A nominal value becomes its category's code (its position in the tree's categories of the
        feature, 0 when NULL or unknown: missing); a nominal node's ``left`` is where its row starts in
        a flat array of destinations indexed by code, which :func:`treegen.model.child_for` fills, so
        ``==`` and ``in`` splits are one lookup and exact by construction."""
        nodes = self.walk_arrays(ref, [self.tree])
        if not self.exclusive:
            return self.weighted_walk(nodes)
        n = self.w.column("node")  # names no feature can hide
        return self.looped(nodes, self.tree.depth(), "1", n, lambda bound: self.next_node(bound, n))

    def forest_walk(self, forest: dict[int, tuple[int, int]], ref: Ref) -> str:
        """The exclusive walked trees ``forest`` (:func:`_forest`) in one loop, over one set of arrays
        (each tree's node numbers after the trees' before it): an array of the node each tree reached,
        each step moving every tree's node down. Spark generates the code of a loop once, and of a
        walk once a tree: 30 walked trees made a method beyond Janino's 64 KB (Spark then logs an
        error and runs the query without its whole-stage code); together, with each output's sum one
        array (:meth:`together`), 1,500 trees fit, and a row takes less time."""
        trees = [self.w.model.trees[i] for i in forest]
        roots = [before + 1 for _, before in forest.values()]
        nodes = self.walk_arrays(ref, trees)
        reached, n = self.w.column("nodes"), self.w.column("node")
        return self.looped(nodes, max(tree.depth() for tree in trees), self.d.array_of(roots, "INT"), reached,
                           lambda bound: self.d.arrays.each.format(reached, n, self.next_node(bound, n)))

    def together(self, trees: list[TreeSql], term: Callable[[Tree, Node], float]) -> Callable[[Ref], str] | None:
        """The terms of ``trees`` (``term`` of the node each reached) in tree order as one array, when
        they are walked together side by side: one ``transform`` of a slice of the walks, whatever the
        number of trees (a term a tree in a sum made Spark's code beyond Janino's 64 KB a method from
        about 300 trees)."""
        forest = _forest(self.w)
        if len(trees) < 2 or any(tree.index not in forest for tree in trees):
            return None
        places = [forest[tree.index][0] for tree in trees]
        if places != list(range(places[0], places[0] + len(trees))):
            return None
        numbers = [term(tree.tree, node) for tree in trees for node in tree.tree.nodes]
        terms, before, n = self.d.array_of(numbers, "DOUBLE"), forest[trees[0].index][1], self.w.column("node")
        node = f"{n} - {before}" if before else n

        def array(ref: Ref) -> str:
            walks = ref(FOREST)
            if len(trees) < len(forest):
                walks = self.d.arrays.part.format(array=walks, start=places[0], count=len(trees), end=places[-1])
            return self.d.arrays.each.format(walks, n, self.at(terms, node))
        return array

    def looped(self, nodes: dict[str, str], steps: int, start: str, acc: str, body: Callable[[dict], str]) -> str:
        """The dialect's loop of ``steps`` steps from ``start``: ``body(arrays)`` from the value so far
        ``acc``, with the constant arrays bound once a row where the dialect needs it."""
        arrays, level = self.d.arrays, self.w.column("level")
        if arrays.bind is None:
            return arrays.loop.format(steps=steps, start=start, acc=acc, step=level, body=body(nodes))
        record, constant = self.w.column("arrays"), [name for name in _CONSTANT if name in nodes]
        bound = nodes | {name: f"{record}.{name}" for name in constant}
        loop = arrays.loop.format(steps=steps, start=start, acc=acc, step=level, body=body(bound))
        return arrays.bind.format(items=", ".join(arrays.item.format(name, nodes[name]) for name in constant),
                                  name=record, body=loop)

    def weighted_walk(self, nodes: dict[str, str]) -> str:
        """The walk of a tree with fractional routes, then its output with J48's arithmetic
        (:func:`treegen.model.nested_sum`): the totals (one per output component) and, for the leaf
        column, the leaf ids.

        The loop carries the entries still on their way down (node, weight, done, spread) and the
        ended ones. A missing value at a fractional split replaces an entry by a mark (spread: its
        child count) and one entry per child, in order, each weighing the entry's weight times the
        child's fraction (root first, as J48 multiplies); so entries stay in the order of
        :func:`treegen.model.walk`. After each step the ended entries in front (at a leaf, a stop or
        a mark) join the ended ones, and a step touches only the entries left. The ended ones are
        three arrays of numbers (node, weight, spread), which Spark copies with the loop's value at
        every step, as it does the leaf ids (a fractional chain 10,000 deep: quadratic, but arrays
        of numbers copy several times faster than arrays of structs). The leaf ids are those of the
        ended entries (not marks) whose weight is above zero, each after a ``|``.

        The ended entries are then added up from the last: each end pushes ``weight * value`` on a
        stack, each mark replaces the top ``spread`` sums (its children's, the first on top) by
        their sum from 0.0, left to right. From the last, a chain's stack holds two sums (its deep
        child comes last), a balanced tree's one per level; a chain whose deep child comes first
        would hold one per level."""
        tree, d = self.tree, self.d
        e, acc, new, done, nx, j, x, y, s, a, c, v, i = (self.w.column(name) for name in (
            "entry", "acc", "new", "done", "next", "child", "x", "y", "stack", "sum", "part", "v", "i"))
        vector = self.w.vector  # with label values, each node's scores then its label values
        width, one, zero = len(vector(tree.nodes[0])), d.double(1.0), d.double(0.0)
        values = d.array_of([v for node in tree.nodes for v in vector(node)], "DOUBLE")
        ends = lambda node: f"{self.at(nodes['features'], node)} = 0"  # a leaf
        entry = lambda n, w, ended, spread="0": f"named_struct('n', {n}, 'w', {w}, 'd', {ended}, 's', {spread})"
        leaf_field = ", 'leaf', ''" if self.w.with_leaf else ""  # the ids only when the query shows them
        root = entry(1, one, "false")
        # the ended entries as three arrays of numbers (node, weight, spread): Spark copies a loop's
        # value at every step, and arrays of numbers copy much faster than arrays of structs
        ended = ", ".join(f"'{f}', slice(array({v}), 1, 0)" for f, v in (("en", 1), ("ew", one), ("es", 1)))
        start = f"named_struct('active', array({root}), {ended}{leaf_field})"
        # one level down: an entry moves to a child (or stays, done), or spreads over all children
        first, count, kid = self.at(nodes["first"], f"{e}.n"), self.at(nodes["count"], f"{e}.n"), self.at(nodes["kids"], j)
        children = f"transform(sequence({first}, {first} + {count} - 1), {j} -> {entry(kid, f'{e}.w * ' + self.at(nodes['shares'], j), ends(kid))})"
        spread = f"concat(array({entry(f'{e}.n', f'{e}.w', 'true', count)}), {children})"
        moved = f"array({entry(nx, f'{e}.w', f'{nx} = {e}.n OR {ends(nx)}')})"
        step = _let(self.next_node(nodes, f"{e}.n"), nx, f"IF({nx} > 0, {moved}, {spread})")
        # the ended entries in front join the ended ones; the ends with a weight above zero the leaf
        # ids ("|" and the node id each)
        weighing = f"filter({done}, {e} -> {e}.s = 0 AND {e}.w > {zero})"
        leaf = (f", 'leaf', concat({acc}.leaf, array_join(transform({weighing}, {e} -> "
                f"concat('|', CAST({e}.n - 1 AS {d.cast_text}))), ''))") if self.w.with_leaf else ""
        in_front = f"coalesce(nullif(array_position(transform({new}, {e} -> {e}.d), false), 0) - 1, size({new}))"
        joined = "".join(f", 'e{f}', concat({acc}.e{f}, transform({done}, {e} -> {e}.{f}))" for f in "nws")
        settle = _let(f"slice({new}, 1, {in_front})", done,
                      f"named_struct('active', slice({new}, size({done}) + 1, size({new}) - size({done})){joined}{leaf})")
        level_down = _let(f"flatten(transform({acc}.active, {e} -> IF({e}.d, array({e}), {step})))", new, settle)
        walked = self.d.arrays.loop.format(steps=tree.depth(), start=start, acc=acc, step=self.w.column("level"),
                                           body=level_down)
        # added up from the last ended entry: an end's weighted value pushed, a mark's children summed
        node, weight, count = (f"element_at({acc}.e{f}, {i})" for f in "nws")
        pushed = f"concat({s}, array(transform(slice({values}, ({node} - 1) * {width} + 1, {width}), {v} -> {weight} * {v})))"
        top = f"reverse(slice({s}, size({s}) - {count} + 1, {count}))"  # the first child first
        added = f"aggregate({top}, array_repeat({zero}, {width}), ({a}, {c}) -> zip_with({a}, {c}, ({x}, {y}) -> {x} + {y}))"
        summed = f"concat(slice({s}, 1, size({s}) - {count}), array({added}))"
        empty = f"slice(array(array_repeat({zero}, {width})), 1, 0)"
        stack = f"aggregate(reverse(sequence(1, size({acc}.en))), {empty}, ({s}, {i}) -> IF({count} = 0, {pushed}, {summed}))"
        totals = f"transform(element_at({stack}, 1), {x} -> {zero} + {x})"
        leaf_out = f", 'leaf', {acc}.leaf" if self.w.with_leaf else ""
        return _let(walked, acc, f"named_struct('t', {totals}{leaf_out})")

    def walk_arrays(self, ref: Ref, trees: list[Tree]) -> dict[str, str]:
        """The SQL arrays a walk of ``trees`` reads (see :func:`_walk_rows`; each tree's node numbers
        after the trees' before it), and the feature values it indexes."""
        w, model = self.w, self.w.model
        numeric = _numeric(model)
        nominal = dict(sorted(kv for tree in trees for kv in _nominal_categories(model, tree).items()))
        # a tuple split's answer is a code of its own after the nominal features' (1: its first child, 2: its second)
        answers = list(dict.fromkeys(node.split for tree in trees for node in tree.nodes
                                     if node.split is not None and node.split.op is Op.TUPLE))
        slot = ({f: k for k, f in enumerate(numeric, 1)} | {f: -k for k, f in enumerate(nominal, 1)}
                | {split: -k for k, split in enumerate(answers, len(nominal) + 1)})
        rows, destinations, spread = [], [], None
        for tree in trees:
            tree_rows, tree_destinations, spread = _walk_rows(model, tree, slot, nominal, len(rows), len(destinations))
            rows += tree_rows
            destinations += tree_destinations
        arrays = {name: self.d.array_of(column, "DOUBLE" if name == "cuts" else "INT")
                  for name, column in zip(("features", "cuts", "left", "right", "missing"), zip(*rows))}
        arrays["destinations"] = self.d.array_of(destinations or [0], "INT")
        of, position = self.d.arrays.of, self.d.arrays.position
        arrays["values"] = ref(VALUES) if numeric else ""
        key = self.d.text_key.format  # (byte for byte, whatever the column's collation)
        arrays["codes"] = ", ".join(
            [f"CAST(coalesce({position.format(of.format(w.strings(categories)), key(w.categories[f]))}, 0) AS INT)"
             for f, categories in nominal.items()] + [f"CASE WHEN {w.tuple_test(split)} THEN 1 ELSE 2 END" for split in answers])
        if spread is not None:
            arrays |= {name: self.d.array_of(column, "DOUBLE" if name == "shares" else "INT") for name, column in spread.items()}
        return arrays

    def next_node(self, nodes: dict[str, str], n: str) -> str:
        """The node that node ``n`` sends the row to (itself at a leaf or a stop; 0: spread)."""
        at = self.at
        feature = at(nodes["features"], n)
        step = [f"CASE WHEN {feature} = 0 THEN {n}"]
        if nodes["codes"]:
            code = at(self.d.arrays.of.format(nodes["codes"]), f"-{feature}")
            step.append(f" WHEN {feature} < 0 THEN {at(nodes['destinations'], at(nodes['left'], n) + ' + ' + code)}")
        if nodes["values"]:
            value = at(nodes["values"], feature)
            step.append(f" WHEN {value} IS NULL OR isnan({value}) THEN {at(nodes['missing'], n)}"
                        f" WHEN {value} <= {at(nodes['cuts'], n)} THEN {at(nodes['left'], n)}"
                        f" ELSE {at(nodes['right'], n)}")
        return "".join(step) + " END"


_OPS, _STOP = tuple(Op), MissingRoute.stop()
_NOT_CODED = (Op.LE, Op.TUPLE)  # splits whose feature's categories are no codes of the walk
_CONSTANT = ("features", "cuts", "left", "right", "missing", "destinations")  # the arrays of an exclusive walk
# Read at every step of every walk, so computed once a row, in a step of the query before the walks:
# built in the loop, the array of the features was a third of Spark's code for a walk (a 3-class boosted
# model of 60 trees: one method of 29,500 lines, 18,600 without it) and of its time a row
VALUES = "values"
FOREST = "walks"  # the named value of the trees walked together: the node each tree reached


def _forest(writer: Writer) -> dict[int, tuple[int, int]]:
    """The trees walked together -- every exclusive tree the walk writes (the first of the dialect's strategies
    that takes it), when there are two or more and the query names its values -- each with its place among them
    (from 1) and the number of nodes before it, ordered by the output they add to; found once a model.
    In expression mode each tree is walked alone: every read of a named value there is its whole text."""
    if "forest" not in writer.found:
        model, forest, before = writer.model, {}, 0
        # an output's trees side by side, in tree order: its sum reads one slice of the walks (together)
        output = lambda i: -1 if model.trees[i].output is None else model.trees[i].output
        for i in sorted(range(len(model.trees)), key=lambda i: (output(i), i)):
            if writer.exclusive[i] and writer.takers[i] is ArrayWalk:
                forest[i] = (len(forest) + 1, before)
                before += len(model.trees[i].nodes)
        writer.found["forest"] = forest if len(forest) > 1 and not writer.expression else {}
    return writer.found["forest"]


def _numeric(model: Model) -> list[int]:
    return [i for i, f in enumerate(model.features) if f.is_numeric]


def _let(value: str, name: str, body: str) -> str:
    """``body`` with ``name`` bound to ``value``, computed once (Spark SQL has no LET)."""
    return f"element_at(transform(array({value}), {name} -> {body}), 1)"


def _has_unknown_routes(tree: Tree) -> bool:
    """A split sends unknown categories elsewhere than missing values, which the walk's codes (0 for
    both) cannot tell apart: such a tree is written as CASEs."""
    return any(node.split is not None and node.split.unknown is not None for node in tree.nodes)


def _walkable(model: Model, tree: Tree) -> bool:
    """Every split of the tree is ``x <= t`` on a numeric feature or ``==`` / ``in`` on a nominal one."""
    return all(node.split is None or (node.split.op in _OPS
                                      and model.features[node.split.feature].is_numeric == (node.split.op == Op.LE))
               for node in tree.nodes)


def _nominal_categories(model: Model, tree: Tree) -> dict[int, tuple[str, ...]]:
    """Each nominal feature the tree splits on -> its categories, whose positions are the codes (an
    ``==`` split names them all, an ``in`` split some of them: see :func:`treegen.model.split_problem`)."""
    split_on = {node.split.feature for node in tree.nodes if node.split is not None and node.split.op not in _NOT_CODED}
    return {f: model.features[f].categories for f in sorted(split_on)}


def _walk_rows(model: Model, tree: Tree, slot: dict[int, int], nominal: dict[int, tuple[str, ...]],
               before: int = 0, destinations_before: int = 0):
    """(feature slot, cut, left, right, where missing goes) per node, nodes counted from 1 as
    element_at does (after ``before`` nodes of other trees), and the flat destinations of the nominal
    nodes (by category code, 0 first; after ``destinations_before`` of other trees).

    A missing value at a fractional split goes to 0: spread over the children. ``spread`` (None
    without fractional splits) says how: per node its first child's position in the flat ``kids``
    and ``shares``, and its child count."""
    cut = model.numeric.effective_threshold
    fractional = any(node.split is not None and node.split.missing.kind == Route.FRACTION for node in tree.nodes)
    rows, destinations = [], []
    spread = {"first": [], "count": [], "kids": [], "shares": []}
    for n, node in enumerate(tree.nodes, before + 1):
        split = node.split
        route = split.missing if split is not None else _STOP
        spread["first"].append(len(spread["kids"]) + 1)
        if route.kind == Route.FRACTION:
            spread["count"].append(len(node.children))
            spread["kids"] += [before + child + 1 for child in node.children]
            spread["shares"] += route.weights
        else:
            spread["count"].append(0)
        if split is None:  # a leaf leads to itself
            rows.append((0, 0.0, n, n, n))
            continue
        missing = (before + node.children[route.child] + 1 if route.kind == Route.CHILD
                   else n if route.kind == Route.STOP else 0)
        if split.op == Op.LE:
            left, right = (before + child + 1 for child in node.children)
            rows.append((slot[split.feature], cut(split.threshold), left, right, missing))
            continue
        if split.op is Op.TUPLE:  # its answer's code: 1 or 2 (its key reads missing values itself)
            rows.append((slot[split], 0.0, destinations_before + len(destinations) + 1, n, missing))
            destinations += [missing] + [before + child + 1 for child in node.children]
            continue
        rows.append((slot[split.feature], 0.0, destinations_before + len(destinations) + 1, n, missing))
        for category in (None,) + nominal[split.feature]:
            child = None if category is None else child_for(model, split, category)
            destinations.append(missing if child is None else before + node.children[child] + 1)
    return rows, destinations, spread if fractional else None
