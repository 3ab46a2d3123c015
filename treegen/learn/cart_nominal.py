"""Nominal features in CART: the best two-subset split (``x in {...}``) of every node of a level at once.

Per node, the statistics of each category come from one ``bincount`` over (node, category) cells.
The candidate left subsets are

* with two classes or a numeric target: the first 1, 2, ... categories present at the node in
  increasing order of the second class's proportion, or of the mean (Breiman: the best subset is
  one of these); ties in that order keep the declared order of the categories;
* with more classes and at most :data:`~treegen.learn.cart_problem.EXHAUSTIVE_CATEGORIES` declared
  categories: every subset, in the order of their bit masks (a subset before any superset that only
  adds categories absent from the node, so such absent ones never enter a split);
* with more classes and more categories: prefixes of the order by the proportion of the node's
  majority class (a heuristic).

Each subset is tried with the missing rows right, then left, as numeric cuts are.
"""
from __future__ import annotations

import numpy as np

from . import libm
from .cart_problem import EXHAUSTIVE_CATEGORIES, Problem, drop_light, exact_near_best, proxy


def nominal_search(problem: Problem, level, feature: int, best) -> None:
    """Offer ``best`` each node's best subset split on nominal feature ``feature``."""
    sizes = np.diff(level.starts)
    nodes = len(sizes)
    per_category, counts = _category_statistics(problem, level, feature)
    if problem.width > 2 and counts.shape[1] <= EXHAUSTIVE_CATEGORIES:
        left, n_left, valid, members = _all_subsets(per_category, counts)
    else:
        left, n_left, valid, members = _ordered_prefixes(problem, per_category, counts, level.totals)
    scores = _scores(problem, level, left, n_left, valid, per_category, counts)
    position = np.argmax(scores, axis=1)
    score = scores[np.arange(nodes), position]
    variant, subset = np.divmod(position, left.shape[2])
    chosen_left = n_left[np.arange(nodes), subset]
    n_missing = sizes - counts.sum(1)
    missing_left = np.where(n_missing > 0, variant == 1, chosen_left > sizes - chosen_left)
    best.offer(score, np.full(nodes, feature), np.full(nodes, np.nan), missing_left,
               codes=lambda node: members(node, int(subset[node])))


def _category_statistics(problem: Problem, level, feature: int):
    """Per node and category: summed statistics (statistics, nodes, categories) and row counts."""
    members = level.orders[-1]
    sizes = np.diff(level.starts)
    nodes, k = len(sizes), len(problem.categories[feature])
    segment = np.repeat(np.arange(nodes), sizes)
    codes = problem.codes[feature][members]
    present = codes >= 0
    cell = segment[present] * k + codes[present]
    stats = problem.stats[:, members[present]]
    per_category = np.stack([np.bincount(cell, weights=row, minlength=nodes * k) for row in stats])
    counts = np.bincount(cell, minlength=nodes * k).reshape(nodes, k)
    return per_category.reshape(len(stats), nodes, k), counts


def _all_subsets(per_category: np.ndarray, counts: np.ndarray):
    k = counts.shape[1]
    subsets = (np.arange(1, 2 ** k)[:, None] >> np.arange(k)[None, :] & 1).astype(bool)  # (S, k)
    left = per_category @ subsets.T.astype(np.float64)  # (statistics, nodes, S)
    n_left = counts @ subsets.T.astype(np.int64)
    valid = np.ones(n_left.shape, dtype=bool)
    return left, n_left, valid, lambda node, s: tuple(int(c) for c in np.flatnonzero(subsets[s]))


def _ordered_prefixes(problem: Problem, per_category: np.ndarray, counts: np.ndarray, totals: np.ndarray):
    with np.errstate(all="ignore"):
        if not problem.width:
            key = per_category[1] / per_category[0]  # the mean
        else:
            column = np.ones(counts.shape[0], dtype=np.int64) if problem.width == 2 else np.argmax(totals, axis=0)
            key = np.take_along_axis(per_category, column[None, :, None], axis=0)[0] / per_category.sum(0)
    key = np.where(counts > 0, key, np.inf)  # categories absent from a node come last, never chosen
    order = np.argsort(key, axis=1, kind="stable")  # (nodes, k)
    left = np.cumsum(np.take_along_axis(per_category, order[None], axis=2), axis=2)
    n_left = np.cumsum(np.take_along_axis(counts, order, axis=1), axis=1)
    valid = np.arange(counts.shape[1])[None, :] < (counts > 0).sum(1)[:, None]
    return left, n_left, valid, lambda node, s: tuple(sorted(int(c) for c in order[node, :s + 1]))


def _scores(problem: Problem, level, left, n_left, valid, per_category, counts) -> np.ndarray:
    """Scores (nodes, 2 x subsets): every subset with the missing rows right, then left."""
    leaf = problem.params.min_samples_leaf
    sizes = np.diff(level.starts)[:, None]
    n_missing = sizes - counts.sum(1)[:, None]
    total = level.totals[:, :, None]
    right = total - left
    scores = proxy(problem.criterion, left, right, log=libm.quick_log)
    scores[~(valid & (n_left >= leaf) & (sizes - n_left >= leaf))] = -np.inf
    drop_light(problem, scores, left, right)
    _exact_near_best(problem, scores, left, right)
    with_missing = left + (level.totals - per_category.sum(2))[:, :, None]
    right = total - with_missing
    scores_left = proxy(problem.criterion, with_missing, right, log=libm.quick_log)
    scores_left[~(valid & (n_missing > 0) & (n_left + n_missing >= leaf)
                  & (sizes - n_missing - n_left >= leaf))] = -np.inf
    drop_light(problem, scores_left, with_missing, right)
    _exact_near_best(problem, scores_left, with_missing, right)
    return np.concatenate([scores, scores_left], axis=1)


def _exact_near_best(problem: Problem, scores: np.ndarray, left: np.ndarray, right: np.ndarray) -> None:
    """Each node's best scores (and ties) of one half taken with the C library's log: the other
    half's are, so the best of both is too."""
    exact_near_best(problem.criterion, scores, lambda: scores.max(axis=1, keepdims=True), left, right,
                    lambda left, right: proxy(problem.criterion, left, right))
