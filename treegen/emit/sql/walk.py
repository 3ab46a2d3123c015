"""A big tree as data -- its nodes' features, cuts and children as arrays (each one string literal
cast to an array) -- and a loop (Spark: ``aggregate`` over ``sequence(1, depth)``; DuckDB:
``list_reduce`` over ``range(depth)``) that moves the row one level down per step; a nominal value is
looked up by its category's position. The dialect's row (``Dialect.arrays``) spells the functions.
With fractional routes (Spark only) the loop carries the weighted entries still on their way and adds
up those that ended, in node order.

Spark SQL: a nested CASE of 1,000 leaves is beyond Janino's 64 KB a method (Spark falls back to slow
interpreted evaluation) and one of 5,000 fills a 1 GB driver heap in the parser; the walk runs 50,000
leaves. Every tree is walked once the model has more nodes than ``walk_model_nodes`` (100 trees of
100 nodes as nested CASEs fill Spark's heap as one big tree does).

DuckDB: planning a nested CASE costs about 0.1 ms a node (13 s for 50,000 leaves), a walk about 2 us
a row more than the CASE; a tree of more than ``walk_tree_nodes`` nodes is walked (exclusive trees).

A full query computes each walk once, in a derived table, for every output to read.
"""
from __future__ import annotations

from typing import Callable

from ...model import MissingRoute, Model, Op, Route, Tree, child_for
from .writer import Ref, TreeSql, Writer


class ArrayWalk(TreeSql):
    """The tree walked as arrays; its end (a node, or the totals of a weighted walk) is a named value."""

    def __init__(self, writer: Writer, index: int):
        super().__init__(writer, index)
        self.name = f"w{index}"
        writer.define(self.name, lambda ref: self.walk())

    @staticmethod
    def takes(writer: Writer, index: int) -> bool:
        d, tree = writer.d, writer.model.trees[index]
        big = (d.walk_tree_nodes is not None and len(tree.nodes) > d.walk_tree_nodes
               or d.walk_model_nodes is not None and writer.nodes > d.walk_model_nodes)
        linear = any(node.linear is not None for node in tree.nodes)  # its arrays hold values, not sums
        return (big and not linear and len(tree.nodes) > 1 and _walkable(writer.model, tree) and not _has_unknown_routes(tree)
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

    def walk(self) -> str:
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
        nodes = self.walk_arrays()
        if not self.exclusive:
            return self.weighted_walk(nodes)
        n, level = self.w.column("node"), self.w.column("level")  # names no feature can hide
        arrays = self.d.arrays
        if arrays.bind is None:
            return arrays.loop.format(steps=self.tree.depth(), start=1, acc=n, step=level, body=self.next_node(nodes, n))
        record, constant = self.w.column("arrays"), [name for name in _CONSTANT if name in nodes]
        bound = nodes | {name: f"{record}.{name}" for name in constant}
        loop = arrays.loop.format(steps=self.tree.depth(), start=1, acc=n, step=level, body=self.next_node(bound, n))
        return arrays.bind.format(items=", ".join(arrays.item.format(name, nodes[name]) for name in constant),
                                  name=record, body=loop)

    def weighted_walk(self, nodes: dict[str, str]) -> str:
        """The walk of a tree with fractional routes: a struct of the entries still on their way down
        (node, weights, done), the totals (one per output component) and, for the leaf column, the
        leaf ids.

        A missing value at a fractional split replaces an entry by one per child, in order, so entries
        stay in node order. ``weights`` holds one product per feature with fractional splits, taken in
        path order; an entry's weight multiplies them in feature order (the model's arithmetic). After
        each step the ended entries in front (at a leaf or a stop) are added to the totals and dropped:
        added in node order, as the model adds, and a step touches only the entries left, so a
        fractional chain 10,000 deep stays linear. The leaf ids are those of the ended entries whose
        weight is above zero, each after a ``|``."""
        tree, d = self.tree, self.d
        e, acc, new, done, nx, j, x, i, t = (self.w.column(name) for name in
                                             ("entry", "acc", "new", "done", "next", "child", "x", "i", "t"))
        vector = self.w.vector  # with label values, each node's scores then its label values
        width, one = len(vector(tree.nodes[0])), d.double(1.0)
        values = d.array_of([v for node in tree.nodes for v in vector(node)], "DOUBLE")
        ends = lambda node: f"{self.at(nodes['features'], node)} = 0"  # a leaf
        leaf_field = ", 'leaf', ''" if self.w.with_leaf else ""  # the ids only when the query shows them
        start = (f"named_struct('active', array(named_struct('n', 1, 'w', array_repeat({one}, {nodes['slots']}), "
                 f"'d', false)), 't', array_repeat({d.double(0.0)}, {width}){leaf_field})")
        # one level down: an entry moves to a child (or stays, done), or spreads over all children
        first, count, kid = self.at(nodes["first"], f"{e}.n"), self.at(nodes["count"], f"{e}.n"), self.at(nodes["kids"], j)
        shared = f"transform({e}.w, ({x}, {i}) -> IF({i} = {self.at(nodes['slot'], f'{e}.n')}, {x} * {self.at(nodes['shares'], j)}, {x}))"
        spread = f"transform(sequence({first}, {first} + {count} - 1), {j} -> named_struct('n', {kid}, 'w', {shared}, 'd', {ends(kid)}))"
        moved = f"array(named_struct('n', {nx}, 'w', {e}.w, 'd', {nx} = {e}.n OR {ends(nx)}))"
        step = _let(self.next_node(nodes, f"{e}.n"), nx, f"IF({nx} > 0, {moved}, {spread})")
        # the ended entries in front go into the totals (t + weight * value), and those with a weight
        # above zero into the leaf ids ("|" and the node id each)
        weight = f"aggregate({e}.w, {one}, ({x}, {t}) -> {x} * {t})"
        value = self.at(values, f"({e}.n - 1) * {width} + {i} + 1")
        totals = f"transform({acc}.t, ({t}, {i}) -> aggregate({done}, {t}, ({x}, {e}) -> {x} + {weight} * {value}))"
        weighing = f"filter({done}, {e} -> {weight} > {d.double(0.0)})"
        leaf = (f", 'leaf', concat({acc}.leaf, array_join(transform({weighing}, {e} -> "
                f"concat('|', CAST({e}.n - 1 AS {d.cast_text}))), ''))") if self.w.with_leaf else ""
        in_front = f"coalesce(nullif(array_position(transform({new}, {e} -> {e}.d), false), 0) - 1, size({new}))"
        settle = _let(f"slice({new}, 1, {in_front})", done,
                      f"named_struct('active', slice({new}, size({done}) + 1, size({new}) - size({done})), "
                      f"'t', {totals}{leaf})")
        level_down = _let(f"flatten(transform({acc}.active, {e} -> IF({e}.d, array({e}), {step})))", new, settle)
        return self.d.arrays.loop.format(steps=tree.depth(), start=start, acc=acc, step=self.w.column("level"),
                                         body=level_down)

    def walk_arrays(self) -> dict[str, str]:
        """The SQL arrays a walk reads (see :func:`_walk_rows`), and the feature values it indexes."""
        w, model, tree = self.w, self.w.model, self.tree
        numeric = [i for i, f in enumerate(model.features) if f.is_numeric]
        nominal = _nominal_categories(model, tree)
        slot = {f: k for k, f in enumerate(numeric, 1)} | {f: -k for k, f in enumerate(nominal, 1)}
        rows, destinations, spread = _walk_rows(model, tree, slot, nominal)
        arrays = {name: self.d.array_of(column, "DOUBLE" if name == "cuts" else "INT")
                  for name, column in zip(("features", "cuts", "left", "right", "missing"), zip(*rows))}
        arrays["destinations"] = self.d.array_of(destinations, "INT")
        of, position = self.d.arrays.of, self.d.arrays.position
        arrays["values"] = of.format(", ".join(w.reads[f] for f in numeric)) if numeric else ""
        arrays["codes"] = ", ".join(f"CAST(coalesce({position.format(of.format(w.strings(categories)), w.columns[f])}, 0) AS INT)"
                                    for f, categories in nominal.items())
        if spread is not None:
            arrays["slots"] = str(spread.pop("slots"))
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
_CONSTANT = ("features", "cuts", "left", "right", "missing", "destinations")  # the arrays of an exclusive walk


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
    split_on = {node.split.feature for node in tree.nodes if node.split is not None and node.split.op != Op.LE}
    return {f: model.features[f].categories for f in sorted(split_on)}


def _walk_rows(model: Model, tree: Tree, slot: dict[int, int], nominal: dict[int, tuple[str, ...]]):
    """(feature slot, cut, left, right, where missing goes) per node, nodes counted from 1 as
    element_at does, and the flat destinations of the nominal nodes (by category code, 0 first).

    A missing value at a fractional split goes to 0: spread over the children. ``spread`` (None
    without fractional splits) says how: per node its first child's position in the flat ``kids``
    and ``shares``, its child count, and which of the weights (one per feature with fractional
    splits: ``slots`` of them) the shares multiply, counted from 0."""
    cut = model.numeric.effective_threshold
    fractional = sorted({node.split.feature for node in tree.nodes
                         if node.split is not None and node.split.missing.kind == Route.FRACTION})
    rows, destinations = [], []
    spread = {"slots": len(fractional), "first": [], "count": [], "slot": [], "kids": [], "shares": []}
    for n, node in enumerate(tree.nodes, 1):
        split = node.split
        route = split.missing if split is not None else _STOP
        spread["first"].append(len(spread["kids"]) + 1)
        if route.kind == Route.FRACTION:
            spread["count"].append(len(node.children))
            spread["slot"].append(fractional.index(split.feature))
            spread["kids"] += [child + 1 for child in node.children]
            spread["shares"] += route.weights
        else:
            spread["count"].append(0)
            spread["slot"].append(-1)
        if split is None:  # a leaf leads to itself
            rows.append((0, 0.0, n, n, n))
            continue
        missing = node.children[route.child] + 1 if route.kind == Route.CHILD else n if route.kind == Route.STOP else 0
        if split.op == Op.LE:
            left, right = (child + 1 for child in node.children)
            rows.append((slot[split.feature], cut(split.threshold), left, right, missing))
            continue
        rows.append((slot[split.feature], 0.0, len(destinations) + 1, n, missing))
        for category in (None,) + nominal[split.feature]:
            child = None if category is None else child_for(model, split, category)
            destinations.append(missing if child is None else node.children[child] + 1)
    return rows, destinations or [0], spread if fractional else None
