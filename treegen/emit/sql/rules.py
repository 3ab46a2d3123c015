"""A tree from its flat rules (:func:`treegen.lower.lower`), one ``WHEN`` or one term per rule.

An exclusive tree (or subtree: see :mod:`.nested`) is a first-match ``CASE``: exactly one rule applies
to a row. A tree with fractional routes sums ``weight * value`` over its rules, each weight a
``CASE`` of the rule's conditions times the fractions of the conditions whose value is missing, in
node order as the model adds; its leaf ids are those of the rules whose weight is above zero.
"""
from __future__ import annotations

from typing import Callable

from ..render import render
from .writer import Ref, TreeSql, Writer


def first_match(w: Writer, rules, then: Callable) -> str:
    """A CASE giving ``then(rule)`` of the first rule that applies."""
    return render("sql", "case.sql.j2", branches=[(w.conjunction(r.conditions), then(r)) for r in rules])


class FlatRules(TreeSql):
    """Any tree: a first-match CASE of its rules, or with fractional routes their weighted sum."""

    @staticmethod
    def takes(writer: Writer, index: int) -> bool:
        return True

    def outcome(self, then: Callable[[int], str], ref: Ref, numbers=None) -> str:
        return first_match(self.w, self.rules.rules, lambda rule: then(rule.node))

    def names(self) -> tuple[str, ...]:
        """With fractional routes, a sum of more terms than a chain takes is added in named partial
        sums (:meth:`Writer.sum_of`), in node order: bit for bit at any length."""
        if self.exclusive:
            return super().names()
        if not hasattr(self, "sums"):
            self.sums: dict[int, Callable[[Ref], str]] = {}
            self.sum_names: list[str] = []
            for k in range(len(self.w.vector(self.tree.nodes[0]))):
                terms = [(lambda ref, term=term: term) for term in self.terms(k)]
                total, reads = self.w.sum_of(f"r{self.index}_{k}", terms, ())
                if reads:  # named partial sums: the last one is the total
                    self.sums[k] = total
                    self.sum_names += reads
        return tuple(self.sum_names)

    def terms(self, k: int) -> list[str]:
        """``weight * value`` of each rule, in node order (x * 1.0 == x, and x * 0.0 adds nothing)."""
        w, nodes = self.w, self.tree.nodes
        values = [w.vector(nodes[r.node])[k] for r in self.rules.rules]
        return [w.weight(r.conditions) + ("" if v == 1.0 else f" * {self.d.double(v)}")
                for r, v in zip(self.rules.rules, values) if v != 0.0]

    def value(self, k: int, ref: Ref) -> str:
        if self.exclusive:
            return super().value(k, ref)
        if k in getattr(self, "sums", {}):  # (names() defined them)
            return self.sums[k](ref)
        terms = self.terms(k)
        return self.w.total(terms) if terms else self.d.double(0.0)

    def leaf(self, ref: Ref) -> str:
        """With fractional routes, ``|`` and the id of each rule whose weight is above zero, in node
        order, without the first ``|``."""
        if self.exclusive:
            return super().leaf(ref)
        w = self.w
        ids = [f"CASE WHEN {w.weighs(r.conditions)} THEN {self.d.string(f'|{r.node}')} ELSE '' END"
               for r in self.rules.rules]
        return self.d.drop_first.format(w.concat(ids))
