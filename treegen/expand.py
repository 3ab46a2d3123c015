"""``tuple`` splits written out as ``in`` and ``<=`` splits, for the back ends that do not test a tuple yet: each
such split becomes a test of its parts, then of its features' categories in groups, and its two subtrees are
repeated under each answer of that test. Exact (the test answers as :func:`treegen.model.tuple_key` does), but a
model of many such splits grows by the product of their answers: the back ends that test tuples take the model
as it is."""
from __future__ import annotations

from dataclasses import replace
from typing import Union

from .model import MissingRoute, Model, Node, Op, Split, Tree, has_tuples

# A test: True (the key is one of the tuples: children[0]), False, or (split, child 0's test, child 1's test)
Test = Union[bool, tuple]


def expanded(model: Model) -> Model:
    """The model with every ``tuple`` split written out (itself when it has none)."""
    if not has_tuples(model):
        return model
    return replace(model, trees=[_expanded_tree(tree) for tree in model.trees])


def _expanded_tree(tree: Tree) -> Tree:
    """The tree in pre-order, each ``tuple`` split's test in its place and its subtrees under each answer."""
    old, nodes = tree.nodes, []
    stack: list[tuple] = [("node", 0, None, 0)]  # (what, its node id or test, parent's new id, child position)
    while stack:
        kind, item, parent, position = stack.pop()
        me = len(nodes)
        if parent is not None:
            children = list(nodes[parent].children)
            children[position] = me
            nodes[parent].children = tuple(children)
        if kind == "node":
            node = old[item]
            if node.split is not None and node.split.op is Op.TUPLE:
                stack.append(("test", (_test(node.split), node.children, node), parent, position))
                continue
            nodes.append(replace(node, children=tuple(-1 for _ in node.children)))
            stack.extend(("node", child, me, i) for i, child in reversed(list(enumerate(node.children))))
            continue
        test, (in_child, out_child), node = item
        if isinstance(test, bool):
            stack.append(("node", in_child if test else out_child, parent, position))
            continue
        split, if_in, if_out = test
        nodes.append(Node(node.value, n=node.n, split=split, children=(-1, -1), counts=node.counts))
        stack.append(("test", (if_out, (in_child, out_child), node), me, 1))
        stack.append(("test", (if_in, (in_child, out_child), node), me, 0))
    return replace(tree, nodes=nodes)


def _test(split: Split) -> Test:
    """The test of ``split``'s parts, then of its features, answering whether the key is one of its tuples."""
    return _keys_test(split, sorted(split.tuples, key=repr), len(split.parts), 0)


def _keys_test(split: Split, keys: list[tuple], parts_left: int, place: int) -> Test:
    """Whether the rest of the key (from ``place`` of the tuples' order: features, then parts) is one of ``keys``
    (the tuples' rests); the parts are tested first, from the last place."""
    if not keys:
        return False
    width = len(split.features)
    if parts_left:
        at = width + len(split.parts) - parts_left
        part = split.parts[at - width]
        return (part, *(_keys_test(split, [k for k in keys if k[at] == p], parts_left - 1, place) for p in (0, 1)))
    if place == width:
        return True
    groups: dict[frozenset, list] = {}
    for value in dict.fromkeys(key[place] for key in keys):
        rest = frozenset(key for key in keys if key[place] == value)
        groups.setdefault(frozenset(k[place + 1:width] for k in rest), []).append(value)
    return _chain(split.features[place], [(values, [k for k in keys if k[place] in values]) for values in
                                          groups.values()], lambda rest: _keys_test(split, rest, 0, place + 1))


def _chain(feature: int, groups: list[tuple[list, list]], then) -> Test:
    """``in`` splits one after another, a group each (its categories; None: a missing value), then False."""
    test: Test = False
    for values, keys in reversed(groups):
        names = tuple(value for value in values if value is not None)
        missing_in = None in values
        split = Split(feature, Op.IN, values=names, missing=MissingRoute.to_child(0 if missing_in else 1),
                      unknown=1 if missing_in else None)
        test = (split, then(keys), test)
    return test
