"""A classification tree printed exactly as Weka's J48 prints its "J48 pruned tree" section body.

``attr <= 2.5: class (N/E)`` lines, ``|   `` per level, then the number of leaves and the size.
Thresholds use Weka's ``Utils.doubleToString(t, 6)`` (Java's ``Double.toString`` under J48 -B); weights ``Utils.roundDouble(w, 2)`` printed
as Java prints a double. A leaf's label and weights are its parent's view of that branch, so an
empty leaf shows the parent's majority class.
"""
from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

from ..errors import TreegenError
from ..model import Model, Node
from .c45_split import gr, max_class


def j48_text(model: Model, tree: int | None = None, double_to_string=None) -> str:
    """The tree as J48 prints it after the dashes under "J48 pruned tree", up to and including
    ``Size of the tree : \\tN\\n``: a blank line then one line per branch, or ``: label`` for a
    tree that is one leaf. ``tree``: which tree of an ensemble (J48's layout holds one).
    ``double_to_string(value, digits)``: how thresholds are rounded, by default as Weka 3.6's
    ``Utils.doubleToString`` (Weka 3.7+ rounds half-even)."""
    double_to_string = double_to_string or weka_double_to_string
    if tree is None:
        if len(model.trees) > 1:
            raise TreegenError(f"J48's layout shows one tree and this model has {len(model.trees)}: "
                               "use the plain style")
        tree = 0
    nodes = model.trees[tree].nodes
    lines = [": " + leaf_label(model, nodes[0], nodes[0]) if nodes[0].is_leaf else ""]
    stack = [(0, b, 0) for b in reversed(range(len(nodes[0].children)))]
    while stack:
        parent_id, branch, depth = stack.pop()
        parent = nodes[parent_id]
        child_id = parent.children[branch]
        child = nodes[child_id]
        text = "|   " * depth + branch_text(model, parent, branch, double_to_string)
        if child.is_leaf:
            text += ": " + leaf_label(model, child, parent)
        else:
            stack.extend((child_id, b, depth + 1) for b in reversed(range(len(child.children))))
        lines.append(text)
    leaves = sum(node.is_leaf for node in nodes)
    return "\n".join(lines) + f"\n\nNumber of Leaves  : \t{leaves}\n\nSize of the tree : \t{len(nodes)}\n"


def branch_text(model: Model, parent: Node, branch: int, double_to_string=None) -> str:
    split = parent.split
    name = model.features[split.feature].name
    if split.op == "==":
        return f"{name} = {split.values[branch]}"
    if split.op == "in":  # J48 -B prints one value as "= v" / "!= v"
        values = split.values[0] if len(split.values) == 1 else "{" + ",".join(split.values) + "}"
        relation = ("=", "!=") if len(split.values) == 1 else ("in", "not in")
        return f"{name} {relation[branch]} {values}"
    if model.meta.get("params", {}).get("binary_splits"):  # BinC45Split prints the double as Java does
        threshold = java_double(split.threshold)
    else:  # C45Split: Utils.doubleToString(t, 6)
        threshold = (double_to_string or weka_double_to_string)(split.threshold, 6)
    return f"{name} {'<=' if branch == 0 else '>'} {threshold}"


def leaf_label(model: Model, leaf: Node, parent: Node) -> str:
    """``ClassifierSplitModel.dumpLabel``: majority class (the parent's for an empty branch),
    weight, and misclassified weight when there is any. A regression leaf shows its value."""
    if not model.target.is_classification:
        return f"{weka_double_to_string(leaf.value[0], 6)} ({java_double(round_double(leaf.n, 2))})"
    counts = class_weights(leaf) if gr(leaf.n, 0) else class_weights(parent)
    label = model.target.classes[max_class(counts)]
    wrong = leaf.n - counts[max_class(counts)] if gr(leaf.n, 0) else 0.0
    text = f"{label} ({java_double(round_double(leaf.n, 2))}"
    if gr(wrong, 0):
        text += f"/{java_double(round_double(wrong, 2))}"
    return text + ")"


def class_weights(node: Node) -> tuple[float, ...]:
    """The node's training class weights; for models without counts, its value scaled by its weight."""
    return node.counts or tuple(v * node.n for v in node.value)


def round_double(value: float, digits: int) -> float:
    """Weka's ``Utils.roundDouble``: ``Math.round(value * 10^d) / 10^d``."""
    mask = 10.0 ** digits
    return math.floor(value * mask + 0.5) / mask


def java_double(value: float) -> str:
    """Java's ``Double.toString``: shortest digits, plain between 1e-3 and 1e7, else ``d.dddE±n``."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    sign = "-" if value < 0 else ""
    exact = Decimal(repr(abs(value)))  # repr: the shortest digits that read back as the same double
    if 1e-3 <= abs(value) < 1e7:
        text = format(exact, "f")
        return sign + (text if "." in text else text + ".0")
    digits = "".join(map(str, exact.as_tuple().digits)).rstrip("0") or "0"
    exponent = exact.adjusted()
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


def weka_double_to_string(value: float, after: int) -> str:
    """Weka's ``Utils.doubleToString(value, afterDecimalPoint)``: rounded, trailing zeros dropped."""
    temp = value * math.pow(10.0, after)
    if not abs(temp) < 9.223372036854776e18:
        return java_double(value)
    precision = int(temp + 0.5) if temp > 0 else -int(abs(temp) + 0.5)
    chars = list("0" if precision == 0 else str(precision))
    dot = len(chars) - after
    while (precision < 0 and dot < 1) or dot < 0:
        chars.insert(1 if precision < 0 else 0, "0")
        dot += 1
    chars.insert(dot, ".")
    if precision < 0 and chars[1] == ".":
        chars.insert(1, "0")
    elif chars[0] == ".":
        chars.insert(0, "0")
    pos = len(chars) - 1
    while pos > dot and chars[pos] == "0":
        chars[pos] = " "
        pos -= 1
    if chars[pos] == ".":
        chars[pos] = " "
    return "".join(chars).strip()


def decimal_format_double_to_string(value: float, after: int) -> str:
    """Weka 3.7+'s ``Utils.doubleToString(value, afterDecimalPoint)``: a ``DecimalFormat`` (no
    grouping, half-up on the exact double) with at most ``after`` decimals; ``-0`` stays signed."""
    if not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    text = format(Decimal(value).quantize(Decimal(1).scaleb(-after), rounding=ROUND_HALF_UP), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "-0" if text == "0" and math.copysign(1.0, value) < 0 else text
