"""A tree from its flat rules (:func:`treegen.lower.lower`), one ``WHEN`` or one term per rule.

An exclusive tree (or subtree: see :mod:`.nested`) is a first-match ``CASE``: exactly one rule applies
to a row. A tree with fractional routes adds up ``weight * value`` over its rules with J48's
arithmetic (:func:`treegen.model.nested_sum`): each weight a ``CASE`` of the rule's conditions
times its path's fractions, root first (:meth:`Writer.weight`); the terms added as the tree nests
(:func:`nested_terms`); its leaf ids are those of the rules whose weight is above zero. Where the dialect
says so (``Dialect.named_weights``: DuckDB) a query names each weight, computed once a row for every
class's sum and the leaf ids to read, rather than written in each of them.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ...model import Route, Tree
from ..render import render
from .writer import Ref, TreeSql, Writer


def first_match(w: Writer, rules, then: Callable) -> str:
    """A CASE giving ``then(rule)`` of the first rule that applies."""
    return render("sql", "case.sql.j2", branches=[(w.conjunction(r.conditions), then(r)) for r in rules])


@dataclass
class Nest:
    """A sum written ``a + b + c ...``, left to right (its operands: terms, or nests in parentheses),
    and how deep its parentheses nest."""
    operands: list
    depth: int


def nested_terms(tree: Tree, term: Callable[[int], str | None]) -> list:
    """The operands of a fractional tree's sum, to add left to right, each a term (``term(node id)``,
    None where statically zero) or a :class:`Nest` in parentheses: J48's sums as the tree nests.

    A fractional split adds its children's sums left to right (:func:`fold`). Below any other split
    at most one child -- or the node itself, where a missing value stops -- has a term that is not
    an exact zero for a row, so their operands join the enclosing sum in any order and grouping
    (x + 0.0 == x). Built from the leaves up (node ids are in pre-order), without recursion."""
    operands: dict[int, list] = {}
    for n in reversed(range(len(tree.nodes))):
        node = tree.nodes[n]
        own = term(n)
        slots = [operands.pop(child) for child in node.children]
        if node.is_leaf or node.split.missing.kind != Route.FRACTION:
            merged = max(slots, key=len, default=[])  # extended in place: a deep chain stays linear
            for slot in slots:
                if slot is not merged:
                    merged.extend(slot)
            if own is not None:
                merged.append(own)
            operands[n] = merged
            continue
        added = fold([op for slot in slots for op in slot])
        operands[n] = [] if added is None else [added]
    added = fold(operands[0])
    return [] if added is None else added.operands if isinstance(added, Nest) else [added]


def fold(operands: list):
    """The operands added left to right, as one term or a :class:`Nest` (None: no operand). Each
    addition may swap its two sides (IEEE + is commutative, never regrouped): the side whose
    parentheses nest deeper goes first, unparenthesised (Sethi-Ullman), so a chain's sum is one
    flat ``a + b + ...`` and a balanced tree's nests about log2(leaves) deep."""
    spine, depth = None, 0
    for op in operands:
        nest = isinstance(op, Nest)
        if spine is None:
            spine, depth = (op.operands, op.depth) if nest else ([op], 0)
            continue
        inside = op.depth + 1 if nest else 0  # op after the sum so far, in parentheses
        before = depth + 1 if len(spine) > 1 else 0  # or the sum so far after op's own operands
        if nest and max(op.depth, before) < max(depth, inside):
            op.operands.append(Nest(spine, depth) if len(spine) > 1 else spine[0])
            spine, depth = op.operands, max(op.depth, before)
        else:
            spine.append(op)
            depth = max(depth, inside)
    if spine is None:
        return None
    return Nest(spine, depth) if len(spine) > 1 else spine[0]


class FlatRules(TreeSql):
    """Any tree: a first-match CASE of its rules, or with fractional routes their weighted sum."""

    @staticmethod
    def takes(writer: Writer, index: int) -> bool:
        return True

    def outcome(self, then: Callable[[int], str], ref: Ref, numbers=None) -> str:
        return first_match(self.w, self.rules.rules, lambda rule: then(rule.node))

    def names(self) -> tuple[str, ...]:
        """With fractional routes, each component's sum (:func:`nested_terms`); a sum of more terms
        than a chain takes is added in named partial sums (:meth:`Writer.sum_of`): bit for bit at
        any length."""
        if self.exclusive:
            return super().names()
        if not hasattr(self, "sums"):
            self.sums: dict[int, Callable[[Ref], str]] = {}
            # in a query where the dialect names them (Dialect.named_weights), each rule's weight is a named value
            self.named = self.d.named_weights and not self.w.inlines
            self.weights = {rule.node: self.weight_of(rule) for rule in self.rules.rules}
            self.sum_names: list[str] = [self.weight_name(rule) for rule in self.rules.rules] if self.named else []
            for k in range(len(self.w.vector(self.tree.nodes[0]))):
                operands = nested_terms(self.tree, self.term(k))
                if not operands:
                    self.sums[k] = lambda ref: self.d.double(0.0)
                    continue
                self.sums[k], reads = self.written(operands, f"r{self.index}_{k}")
                self.sum_names += reads
        return tuple(self.sum_names)

    def written(self, operands: list, name: str) -> tuple[Callable[[Ref], str], list[str]]:
        """The sum of ``operands`` left to right, nests in parentheses, and the named values it reads
        (each nest longer than a chain is named too, ``name`` and ``n`` and its number)."""
        terms, reads = [], []
        for op in operands:
            if isinstance(op, Nest):
                inner, uses = self.written(op.operands, f"{name}n{len(terms)}")
                terms.append(lambda ref, inner=inner: self.d.group.format(inner(ref)))
                reads += uses
            else:
                terms.append(op)
        return self.w.sum_of(name, terms, reads)

    def weight_of(self, rule) -> Callable[[Ref], str]:
        """A rule's weight (:meth:`Writer.weight`), or where :attr:`named`, a named value that the
        sums and leaf ids read."""
        if not self.named:
            text = self.w.weight(rule)
            return lambda ref: text
        name = self.weight_name(rule)
        self.w.define(name, lambda ref: self.w.weight(rule))
        return lambda ref: ref(name)

    def weight_name(self, rule) -> str:
        return f"x{self.index}_{rule.node}"

    def term(self, k: int) -> Callable[[int], Callable[[Ref], str] | None]:
        """Per node, ``weight * value`` of its rule (x * 1.0 == x); None where it is an exact zero (no
        rule, or the value 0.0)."""
        nodes = self.tree.nodes

        def of(node: int) -> Callable[[Ref], str] | None:
            weight = self.weights.get(node)
            v = self.w.vector(nodes[node])[k] if weight is not None else 0.0
            if v == 0.0:
                return None
            times = "" if v == 1.0 else f" * {self.d.double(v)}"
            return lambda ref: weight(ref) + times
        return of

    def value(self, k: int, ref: Ref) -> str:
        if self.exclusive:
            return super().value(k, ref)
        self.names()  # (the query asks first, to read the named sums)
        return self.sums[k](ref)

    def leaf(self, ref: Ref) -> str:
        """With fractional routes, ``|`` and the id of each rule whose weight is above zero, in node
        order, without the first ``|``."""
        if self.exclusive:
            return super().leaf(ref)
        w, d = self.w, self.d
        self.names()
        # a named weight is above zero exactly when the rule weighs: its conditions hold, its product is not 0
        weighs = (lambda r: f"{self.weights[r.node](ref)} > {d.double(0.0)}") if self.named else w.weighs
        ids = [f"CASE WHEN {weighs(r)} THEN {d.string(f'|{r.node}')} ELSE '' END" for r in self.rules.rules]
        return d.drop_first.format(w.concat(ids))
