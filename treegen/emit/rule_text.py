"""The rule text: a person reads the rules; ``treegen parse`` reads the nodes back, exactly. How each
part is written -- names, numbers, conditions, rules, nodes -- is :mod:`treegen.rule_words`; here, the
text put together.
"""
from __future__ import annotations

import json
import re

from ..describe import keys_lines, number, quote
from ..lower import lower
from ..model import CombineKind, Link, Model, Precision
from ..modelio import check_finite
from ..rule_words import RuleWriter, name, numbers, strings
from .render import render


def emit(model: Model) -> str:
    check_finite(model, holder="rule text", instead="export it to another target, or give the file itself to verify "
                 "or predict")  # (treegen parse would refuse it, as the model file's loader does)
    writer = RuleWriter(model)
    trees = []
    for tree, tree_rules in zip(model.trees, lower(model)):
        trees.append({"output": tree.output, "weight": None if tree.weight == 1.0 else number(tree.weight),
                      "exclusive": tree_rules.exclusive,
                      # numbered lines made here: a loop of Jinja's costs several times the text
                      "rules": "".join(line + "\n" for line in writer.rule_lines(tree, tree_rules.rules)),
                      "nodes": "".join(f"  node {i}: {writer.node(node)}\n" for i, node in enumerate(tree.nodes)),
                      "default": writer.outcome(tree.nodes[0])})
    filters = {"feature_decl": feature_decl, "target_decl": target_decl, "numbers_decl": numbers_decl,
               "combine_decl": combine_decl}
    comments = [meta_line(k, v) for k, v in sorted(model.meta.items()) if isinstance(v, (str, int, float))]
    return render("rule_text", "rule_text.txt.j2", filters, model=model, trees=trees,
                  keys="".join(line + "\n" for line in keys_lines(writer.keysets, quote)),
                  header_comments=[quote(c)[1:-1] for c in comments], unknown_routes=has_unknown_routes(model),
                  missing_intervals=any(f.missing_interval is not None for f in model.features),
                  codes=sorted({str(f.codes) for f in model.features if f.codes is not None}))


def has_unknown_routes(model: Model) -> bool:
    """Some split sends unknown categories elsewhere than missing values."""
    return any(node.split is not None and node.split.unknown is not None for tree in model.trees for node in tree.nodes)


_JSON_NUMBER = re.compile(r"-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?")  # as parse/rule_text.py reads a value


def meta_line(key: str, value) -> str:
    """`key: value`, which `treegen parse` reads back into the model's meta (a value written as a JSON
    number is that number); key and value in JSON where that would read back otherwise: a string
    that looks like a number, true/false, inf, nan, a key that holds ': ' or starts with a quote."""
    plain_value = isinstance(value, str) != bool(_JSON_NUMBER.fullmatch(str(value))) and not isinstance(value, bool)
    if plain_value and ": " not in key and not key.startswith('"'):
        return f"{key}: {value}"
    return f"{json.dumps(key, ensure_ascii=False)}: {json.dumps(value, ensure_ascii=False)}"


def feature_decl(feature) -> str:
    if not feature.is_numeric:
        codes = "" if feature.codes is None else f", codes {feature.codes}"
        return f"{name(feature.name)}: nominal {strings(feature.categories)}{codes}"
    if feature.missing_interval is None:
        return f"{name(feature.name)}: numeric"
    return f"{name(feature.name)}: numeric, missing in {numbers(feature.missing_interval)}"


def target_decl(target) -> str:
    if target.is_classification:
        return f"{name(target.name)}: classes {strings(target.classes)}"
    return f"{name(target.name)}: numeric"


def numbers_decl(numeric) -> str:
    text = numeric.cast
    text += f" tolerance {number(numeric.tolerance)}" if numeric.tolerance else ""
    text += " strict" if numeric.strict else ""
    return text + (f" zero band {number(numeric.zero_band)}" if numeric.zero_band else "")


def combine_decl(combine) -> str:
    """The combine line, in the order of the computation; what a model does not use is left out (a
    single tree's link when it is the identity; the divisor 1, float64 precision, the link's decision)."""
    text = str(combine.kind)
    if combine.kind == CombineKind.SUM:
        text += f" init {numbers(combine.init)}" + (" added last" if combine.init_last else "")
        text += f" scale {number(combine.scale)}"
    text += f" divided by {number(combine.divisor)}" if combine.divisor != 1.0 else ""
    if combine.kind != CombineKind.SINGLE or combine.link != Link.IDENTITY or combine.link_scale != 1.0:
        text += f" link {combine.link}" + (f" scale {number(combine.link_scale)}" if combine.link_scale != 1.0 else "")
    text += f" precision {combine.precision}" if combine.precision != Precision.FLOAT64 else ""
    return text + (f" decide {combine.decide}" if combine.decide is not None else "")
