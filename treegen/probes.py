"""Rows that test a model where code generators go wrong: at each threshold and one ulp either side,
the ends of each missing interval, zeros of both signs, LightGBM's zero band, numbers beyond
float32's range, missing values, categories never seen in training, numbers that name category codes."""
from __future__ import annotations

import math
import random

from .model import Feature, Model, NodeColumns, Op

UNSEEN = "\u2603 unseen category"


def boundary_values(model: Model) -> list[list[float]]:
    """For each feature: each threshold on it as the source compares it, its effective float64 cut,
    and one ulp either side of both. From one pass over the nodes (a 1,000-tree model has 511,000),
    each distinct threshold once, met in node order (which of 0.0 and -0.0 is kept)."""
    thresholds: list[dict[float, None]] = [{} for _ in model.features]
    for nodes in (tree.nodes for tree in model.trees):
        if isinstance(nodes, NodeColumns):  # (without making its nodes)
            numeric = nodes.numeric_splits()
            splits = zip(nodes.feature[numeric].tolist(), nodes.threshold[numeric].tolist())
        else:
            splits = ((p.feature, p.threshold) for node in nodes if (s := node.split) is not None
                      for p in (s.parts if s.op is Op.TUPLE else (s,)) if p.op == Op.LE)  # (a tuple split's parts)
        for feature, threshold in splits:
            thresholds[feature].setdefault(threshold)
    return [_around(model, ts) for ts in thresholds]


def _around(model: Model, thresholds) -> list[float]:
    values = set()
    for threshold in thresholds:
        for t in (threshold, model.numeric.effective_threshold(threshold)):
            if math.isfinite(t):
                values.update((t, math.nextafter(t, -math.inf), math.nextafter(t, math.inf)))
    return sorted(values)


# Numbers where importers' semantics meet: both zeros, either side of LightGBM's zero band
# (|x| <= 1e-35 is zero), near and past float32's largest (3.4e38: a float32 cast overflows to inf).
EDGES = (0.0, -0.0, 1e-35, -1e-35, 1e-36, -1e-36, 3e38, -3e38, 1e39, -1e39)


def edge_values(model: Model, feature: int) -> list[float]:
    """:data:`EDGES` and each end of the feature's missing interval with one ulp either side."""
    values = list(EDGES)
    interval = model.features[feature].missing_interval
    if interval is not None:
        for end in interval:
            if math.isfinite(end):
                values += [end, math.nextafter(end, -math.inf), math.nextafter(end, math.inf)]
    keys = {(v, math.copysign(1.0, v)) for v in values}  # 0.0 and -0.0 both: a set of floats keeps one
    return [v for v, _ in sorted(keys)]


# Numbers for a feature of codes (Feature.codes), as numbers and as texts: integral, spelt otherwise
# ("3.0" as pandas writes an integer column with a NaN), fractional (truncated, or no category),
# both zeros, below zero, beyond an int, infinite; under one half, and what float32 rounds to (-)0 (XGBoost);
# just under an integer, which float32 (XGBoost) rounds up to it and a double (LightGBM) truncates below.
CODE_VALUES = ("3.0", "3e0", "2.7", "-0.5", "-0.0", "-1.5", "1e300", "inf",  # as text: what every program reads
               "-0.25", "0.25", "-1e-300", "1e-46", "2.99999999", "-2.9999999999999996")


def code_values(feature: Feature) -> list:
    """:data:`CODE_VALUES` for a feature of codes, else none."""
    return list(CODE_VALUES) if feature.codes is not None else []


ONE_AT_A_TIME_ROWS = 40_000  # up to this many, each row varies one feature (a 13,000-threshold tree)


def probe_rows(model: Model, limit: int = 2000, seed: int = 0) -> list[dict]:
    """Rows built from every feature's boundary values, categories, a missing value and an unseen
    category. When the full cross product is too large, a seeded sample of it, always including one
    row per interesting value with the other features at their first choice.

    Every value always appears: each threshold at, one ulp below and one ulp above. Up to
    ``ONE_AT_A_TIME_ROWS`` rows, each row varies one feature; beyond (big trees over several
    features, such as 50,000 leaves over 10 features: 150,000 rows), the features share rows, row k
    taking each feature's k-th value, so that the rows are as many as the values of the feature with
    the most, not of all features together."""
    choices = []
    boundaries = boundary_values(model)
    for index, feature in enumerate(model.features):
        if feature.is_numeric:
            options = boundaries[index] + edge_values(model, index)
        else:
            options = list(feature.categories) + [UNSEEN] + code_values(feature)
        choices.append(options + [None])
    names = [f.name for f in model.features]
    if sum(len(options) for options in choices) <= ONE_AT_A_TIME_ROWS:
        rows, first = [], {name: opts[0] for name, opts in zip(names, choices)}
        for index, options in enumerate(choices):  # one-at-a-time variations
            for value in options:
                row = first.copy()  # a copy, not a new dict: 1,000 features, 11,000 rows 0.45 -> 0.05 s
                row[names[index]] = value
                rows.append(row)
    else:
        longest = max(len(options) for options in choices)
        rows = [{name: opts[k % len(opts)] for name, opts in zip(names, choices)} for k in range(longest)]
    rng = random.Random(seed)
    while len(rows) < limit and choices:
        rows.append({name: rng.choice(opts) for name, opts in zip(names, choices)})
        if math.prod(len(o) for o in choices) <= len(rows):
            break
    return rows
