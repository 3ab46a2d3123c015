"""Rows that test a model where code generators go wrong: at each threshold and one ulp either side,
missing values, categories never seen in training."""
from __future__ import annotations

import math
import random

from .model import Model

UNSEEN = "\u2603 unseen category"


def boundary_values(model: Model, feature: int) -> list[float]:
    """Each threshold on the feature as the source compares it, its effective float64 cut, and one
    ulp either side of both."""
    values = set()
    for tree in model.trees:
        for node in tree.nodes:
            if node.split is not None and node.split.feature == feature and node.split.op == "<=":
                for t in (node.split.threshold, model.numeric.effective_threshold(node.split.threshold)):
                    if math.isfinite(t):
                        values.update((t, math.nextafter(t, -math.inf), math.nextafter(t, math.inf)))
    return sorted(values)


def probe_rows(model: Model, limit: int = 2000, seed: int = 0) -> list[dict]:
    """Rows built from every feature's boundary values, categories, a missing value and an unseen
    category. When the full cross product is too large, a seeded sample of it, always including one
    row per interesting value with the other features at their first choice."""
    choices = []
    for index, feature in enumerate(model.features):
        if feature.is_numeric:
            options = boundary_values(model, index) or [0.0]
        else:
            options = list(feature.categories) + [UNSEEN]
        choices.append(options + [None])
    names = [f.name for f in model.features]
    rows = []
    for index, options in enumerate(choices):  # one-at-a-time variations
        for value in options:
            row = {name: opts[0] for name, opts in zip(names, choices)}
            row[names[index]] = value
            rows.append(row)
    rng = random.Random(seed)
    while len(rows) < limit and choices:
        rows.append({name: rng.choice(opts) for name, opts in zip(names, choices)})
        if math.prod(len(o) for o in choices) <= len(rows):
            break
    return rows
