"""An oblivious (symmetric) tree -- CatBoost's: every level tests one split, each sending missing values to a
child, down to a complete level of leaves (:func:`treegen.emit.common.symmetric_levels`) -- as the index of the
leaf a row reaches, a bit a level, its outcome picked from the leaves' list by that index (``Dialect.picked``).

Each distinct split's answer (the child a row goes to, 0 or 1) is a named value, in a query computed once a row
for every tree that tests the split (:meth:`.writer.Writer.define`), and a tree's index reads the answers of its
levels: ``1 + a * 32 + b * 16 + ... + f``. A nested CASE writes 2^depth - 1 tests a tree, each in full, and DuckDB
prepares each expression node before the first row (the default CatBoost pairs model, 300 trees of depth 6 and
848 distinct splits: 2.2 s of CPU to plan and 4.75 s to run one row as nested CASEs; its answers named and one
index a tree, 0.5 and 0.75 s: bench/README.md).
"""
from __future__ import annotations

from typing import Callable

from ..common import symmetric_levels
from .nested import split_key, split_tests
from .writer import Ref, TreeSql, Writer

ANSWERS = "oblivious answers"  # Writer.found's key: each split's answer's name


class ObliviousTree(TreeSql):
    """The leaf's index, from each level's named answer, and its outcome picked from the leaves' list."""

    def __init__(self, writer: Writer, index: int):
        super().__init__(writer, index)
        firsts, self.leaves = symmetric_levels(self.tree)
        self.answers = tuple(self.answer(self.tree.nodes[node].split) for node in firsts)

    @staticmethod
    def takes(writer: Writer, index: int) -> bool:
        tree = writer.model.trees[index]  # (not a stump: one test either way)
        return (writer.exclusive[index] and all(node.linear is None for node in tree.nodes)
                and (levels := symmetric_levels(tree)) is not None and len(levels[0]) > 1)

    def reads(self) -> tuple[str, ...]:
        return self.answers

    def answer(self, split) -> str:
        """The name of the split's answer, the position of the child a row goes to (0 or 1), defined once a
        model."""
        names = self.w.found.setdefault(ANSWERS, {})
        key = split_key(split)
        if key not in names:
            names[key] = f"answer{len(names)}"
            (test, position), (_, other) = split_tests(self.w, split, 2)
            self.w.define(names[key], lambda ref: f"CASE WHEN {test} THEN {position} ELSE {other} END")
        return names[key]

    def outcome(self, then: Callable[[int], str], ref: Ref, numbers=None) -> str:
        """``then(leaf)`` of the leaf reached, picked by its index. Given ``numbers`` (:meth:`TreeSql.outcome`):
        where they number the leaves 1, 2, ... in order (a tree's ends: :meth:`TreeSql.names`), the index itself;
        in a dialect of arrays, the numbers one literal cast to an array (DuckDB planned 1,000 trees of depth 8 in
        0.72 s so, 1.60 s as lists of literals)."""
        depth = len(self.answers)
        index = " + ".join(["1"] + [f"{ref(name)} * {1 << (depth - 1 - level)}" if level < depth - 1 else ref(name)
                                    for level, name in enumerate(self.answers)])
        if numbers is not None:
            number, sql_type = numbers
            listed = [number(leaf) for leaf in self.leaves]
            if listed == list(range(1, len(listed) + 1)):
                return index
            if self.d.arrays is not None:
                return self.d.arrays.at.format(self.d.array_of(listed, sql_type), index)
        return self.d.picked([then(leaf) for leaf in self.leaves], index)
