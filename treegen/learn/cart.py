"""CART (Breiman et al. 1984): binary trees grown on Gini, entropy or squared error, as scikit-learn grows them.

Splits
    Numeric features split as ``x <= t`` with ``t`` the midpoint of two consecutive distinct values,
    computed as scikit-learn does (``a/2 + b/2``, exact for float32 values; for float64 values that
    round it up to ``b``, ``a`` itself, so that ``b`` still goes right).
    Nominal features split into two subsets (``op "in"``): categories sorted by the proportion of the
    second class (two classes) or by their mean (regression), which Breiman proved finds the best
    subset; with more classes, every subset when the feature has at most
    :data:`~treegen.learn.cart_problem.EXHAUSTIVE_CATEGORIES` categories, else the categories
    sorted by the proportion of the node's majority class (a heuristic); see
    :mod:`treegen.learn.cart_nominal`. A category that does not reach the node goes right with the
    others not listed.
Missing values (NaN, code -1) -- as scikit-learn >= 1.3
    Each cut is tried with the missing rows on the right, and one more split sends every present
    value left and the missing ones right (``t = inf``); then each cut with the missing rows on the
    left. A feature whose present values are all alike can still split present from missing. A
    split that saw no missing value sends them to the child with more rows (the right one on a tie).
Agreement with scikit-learn
    On numeric data the tree is scikit-learn's (1.9) tree -- same node numbering, features,
    thresholds and missing-value routes -- except where two candidate splits are exactly equally
    good: scikit-learn then keeps the first one in a random order of features; treegen keeps the
    feature that comes first, and within a feature scikit-learn's order (above). Proxies use
    scikit-learn's own arithmetic, so its near-ties fall the same way. ``cast="float32"`` compares
    float32 copies of the values, as scikit-learn does, and records
    ``NumericSemantics(cast="float32")``: thresholds are then bit-identical. The
    default ``cast="float64"`` uses the values as given; thresholds then agree up to float32
    rounding (and scikit-learn's rule that float32 values closer than 1e-7 are one value applies
    in float32 mode only: a cut between sorted values ``a < b`` needs ``b > a + 1e-7`` with the
    sum rounded to float32, as its C code adds two float32 numbers).
What is not bit for bit, and why
    Sums over a node's rows (class weights, sum of w*y, of w*y*y) are exact for whole-number
    weights and classes, so class distributions are scikit-learn's bit for bit. Otherwise they are
    within rounding of scikit-learn's, whose last bits follow the order its in-place sort and
    partition leave the rows in -- an order set by the random order it visits features in at
    every node before (its ``random_state``, consumed depth first), which a level-by-level grower
    cannot replay. So:

    * regression means (leaf values) and impurities differ from scikit-learn's in the last bit or
      two on about half the nodes of more than two rows -- as scikit-learn's own do between two
      random_states (tests/test_cart.py measures both);
    * with fractional weights, two splits that are equally good in exact arithmetic are a near-tie
      that scikit-learn's rounding decides (treegen: the lower feature index, as for exact ties);
    * a node whose rows all hold one class (impurity 0 exactly here) or one target value is a leaf;
      scikit-learn splits some of them when the residue of its sums exceeds ``EPSILON`` (about a
      fifth of such nodes with balanced class weights, and for the same node a different answer
      under another random_state in about one case in fifteen). Predictions are the same; node
      counts and leaf ids differ below those nodes.
Growth
    Level by level, all nodes of a depth at once (:mod:`treegen.learn.cart_grow`); pruning and
    the cross-validated choice of alpha are in :mod:`treegen.learn.cart_prune`. Both build on
    :mod:`treegen.learn.cart_problem` (parameters, prepared data, the grown tree, impurities);
    this module, the entry point, sits on top of them all.
"""
from __future__ import annotations

import numpy as np

from ..data import Dataset
from ..errors import TreegenError
from ..model import Model, NumericSemantics
from .cart_grow import grow
from .cart_problem import Params, gc_paused
from .cart_problem import node_impurity  # noqa: F401 -- part of this module's public face
from .cart_prune import choose_alpha, prune
from .cart_prune import pruning_path as _pruning_path


def fit(dataset: Dataset, criterion: str = "gini", max_depth: int | None = None,
        min_samples_split: int | float = 2, min_samples_leaf: int | float = 1,
        min_impurity_decrease: float = 0.0, ccp_alpha: float | str = 0.0, class_weight=None,
        cv_folds: int = 5, seed: int = 0, cast: str = "float64",
        min_weight_fraction_leaf: float = 0.0) -> Model:
    """Grow a CART tree, then prune it by cost complexity.

    Parameters
    ----------
    dataset : Dataset
        The training data; ``dataset.weights`` are the sample weights.
    criterion : {"gini", "entropy"} for classification; regression always uses squared error.
    max_depth, min_samples_split, min_samples_leaf, min_impurity_decrease, min_weight_fraction_leaf
        Stopping rules with scikit-learn's meaning (fractions of the row count allowed for the two
        ``min_samples`` rules).
    ccp_alpha : float or "cv"
        Cost-complexity parameter; ``"cv"`` chooses it by ``cv_folds``-fold cross-validation
        (seeded by ``seed``, stratified for classification) and records it in ``model.meta``.
    class_weight : None, "balanced" or dict {class label: weight}
        Multiplies the sample weights, as in scikit-learn.
    cast : {"float64", "float32"}
        ``"float32"`` learns and predicts on float32 copies of numeric values, as scikit-learn.

    Returns
    -------
    Model
    """
    params = Params.checked(dataset, criterion, max_depth, min_samples_split, min_samples_leaf,
                            min_impurity_decrease, class_weight, cast, min_weight_fraction_leaf)
    alpha = ccp_alpha
    if isinstance(ccp_alpha, str):
        if ccp_alpha != "cv":
            raise TreegenError(f"ccp_alpha must be a number >= 0 or 'cv', not {ccp_alpha!r}")
        alpha = choose_alpha(dataset, params, cv_folds, seed)
    elif not alpha >= 0:
        raise TreegenError(f"ccp_alpha must be >= 0, not {ccp_alpha!r}")
    with gc_paused():
        grown = grow(dataset, params)
        if alpha > 0:
            grown = prune(grown, alpha)
        tree = grown.tree()
    settings = {"max_depth": max_depth, "min_samples_split": min_samples_split,
                "min_samples_leaf": min_samples_leaf, "min_impurity_decrease": min_impurity_decrease,
                "ccp_alpha": ccp_alpha, "cast": cast, "class_weight": _plain(class_weight),
                "min_weight_fraction_leaf": min_weight_fraction_leaf}
    if ccp_alpha == "cv":
        settings.update(cv_folds=cv_folds, seed=seed)
    meta = {"algorithm": "cart", "criterion": params.criterion, "ccp_alpha": float(alpha),
            "params": {k: _plain(v) for k, v in settings.items()}}
    return Model(dataset.features, dataset.target, [tree],
                 numeric=NumericSemantics(cast=cast), meta=meta)


def _plain(value):
    """A parameter as JSON can hold it (numpy numbers and class-weight dicts included)."""
    if isinstance(value, dict):
        return {str(k): float(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value


def pruning_path(dataset: Dataset, criterion: str = "gini", max_depth: int | None = None,
                 min_samples_split: int | float = 2, min_samples_leaf: int | float = 1,
                 min_impurity_decrease: float = 0.0, class_weight=None, cast: str = "float64",
                 min_weight_fraction_leaf: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """The effective alphas of minimal cost-complexity pruning and the total leaf impurity of each
    subtree, as scikit-learn's ``cost_complexity_pruning_path`` (parameters as :func:`fit`).

    Returns
    -------
    alphas, impurities : ndarray
        Both start with the full tree (alpha 0) and end with the root alone.
    """
    params = Params.checked(dataset, criterion, max_depth, min_samples_split, min_samples_leaf,
                            min_impurity_decrease, class_weight, cast, min_weight_fraction_leaf)
    return _pruning_path(dataset, params)
