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
    With ``random_state=N`` the tree is scikit-learn 1.9's ``DecisionTreeClassifier/Regressor(
    random_state=N)`` tree with the same parameters, bit for bit -- node ids, features, thresholds,
    missing-value routes, values, impurities, weights -- grown by replaying its order of work
    (:mod:`treegen.learn.cart_replay`), in float32 as scikit-learn compares values (``cast``
    defaults to ``"float32"`` then; ``"float64"`` is an error). Numeric features only; no
    ``ccp_alpha="cv"``. Class sums run over the classes in scikit-learn's order (labels sorted,
    as numbers if they all are).
    Without ``random_state`` (treegen's own grower, level by level and faster) the tree is
    scikit-learn's -- same node numbering, features, thresholds and missing-value routes --
    except where two candidate splits are exactly equally good: scikit-learn then keeps the first
    one in a random order of features; treegen keeps the feature that comes first, and within a
    feature scikit-learn's order (above). Proxies use scikit-learn's own arithmetic, so its
    near-ties fall the same way. ``cast="float32"`` compares float32 copies of the values, as
    scikit-learn does, and records ``NumericSemantics(cast="float32")``: thresholds are then
    bit-identical. The default ``cast="float64"`` uses the values as given; thresholds then agree
    up to float32 rounding (and scikit-learn's rule that float32 values closer than 1e-7 are one
    value applies in float32 mode only: a cut between sorted values ``a < b`` needs ``b > a +
    1e-7`` with the sum rounded to float32, as its C code adds two float32 numbers).
Classes
    The model lists a classifier's classes in scikit-learn's order (its ``classes_``: labels sorted,
    as numbers if they all are, as pandas reads a CSV's), not the data's, so that a leaf where two
    classes are equally likely predicts the first, as scikit-learn does.
What is not bit for bit without random_state, and why
    scikit-learn sums a node's rows (class weights, w*y, w*y*y) one at a time in the order its
    parent's split search left them: sorted in place by the last feature that search drew at
    random, then partitioned by swaps; its introsort leaves equal values in an order set by every
    sort before. The draws come from one stream seeded by its ``random_state`` and consumed by the
    split nodes in depth-first order. The level-by-level grower cannot follow that order (it
    learns each node's place in it only once the tree is grown, and with fractional weights the
    tree's shape depends on it); ``random_state`` replays it, depth first, at a cost in time
    (bench/README.md). treegen's own sums are exact, hence scikit-learn's, for whole-number
    weights with classes or whole-number targets. Otherwise:

    * regression means differ in their last bits on about a third of the leaves of more than one
      row (mostly 1 or 2 ulps; at most 1.6e-14 relative on make_regression), as scikit-learn's own
      differ between two random_states;
    * with fractional weights, two splits that are equally good in exact arithmetic are a near-tie
      that scikit-learn's rounding decides (treegen: the lower feature index, as for exact ties);
    * a node whose rows all hold one class (impurity 0 exactly here) or one target value is a
      leaf; scikit-learn splits it when the residue of its sums exceeds ``EPSILON``, so that its
      node count for one data set changes with its random_state. Predictions are the same; node
      counts and leaf ids differ below those nodes;
    * with targets of widely different sizes (seen with ``r * 10**u``, ``u`` uniform over 20 or
      more powers of ten), scikit-learn takes a right child's sum of w*y*y as its parent's less the
      left child's, where small squares vanish: its impurity can come out 0 or below, a leaf, where
      treegen's own sum is positive.
Targets beyond 1e154
    Squares overflow: scikit-learn's impurities are inf, or NaN (inf - inf; a right child's too
    when its sum of w*y*y is taken as inf less inf, whatever its own rows), and a NaN impurity or
    improvement stops no split (``impurity <= EPSILON`` is false), not even a node of one target
    value. treegen takes them alike, silently as its C code does. Every cut's proxy is then inf:
    an exact tie across features, which scikit-learn breaks by its random order and treegen by the
    first feature (with one feature the trees are the same, node for node). Pruning passes over
    NaN effective alphas, as scikit-learn's scan for the smallest does, and stops when only those
    are left.
Growth
    Level by level, all nodes of a depth at once (:mod:`treegen.learn.cart_grow`), or with
    ``random_state`` depth first as scikit-learn (:mod:`treegen.learn.cart_replay`, its in-place
    orders in :mod:`treegen.learn.cart_introsort`); pruning and
    the cross-validated choice of alpha are in :mod:`treegen.learn.cart_prune`. Both build on
    :mod:`treegen.learn.cart_problem` (parameters, prepared data, the grown tree, impurities);
    this module, the entry point, sits on top of them all.
"""
from __future__ import annotations

import numpy as np

from ..collector import collector_paused
from ..data import Dataset
from ..errors import TreegenError
from ..model import Model, NumericSemantics, Target
from .cart_grow import grow
from .cart_problem import Params, sorted_labels
from .cart_replay import grow as replay
from .cart_problem import node_impurity  # noqa: F401 -- part of this module's public face
from .cart_prune import choose_alpha, prune, prune_sequence
from .cart_prune import pruning_path as _pruning_path


def fit(dataset: Dataset, criterion: str | None = None, max_depth: int | None = None,
        min_samples_split: int | float = 2, min_samples_leaf: int | float = 1,
        min_impurity_decrease: float = 0.0, ccp_alpha: float | str = 0.0, class_weight=None,
        cv_folds: int = 5, seed: int = 0, cast: str | None = None,
        min_weight_fraction_leaf: float = 0.0, random_state: int | None = None) -> Model:
    """Grow a CART tree, then prune it by cost complexity.

    Parameters
    ----------
    dataset : Dataset
        The training data; ``dataset.weights`` are the sample weights.
    criterion : "gini" (the default), "entropy" or "log_loss" (scikit-learn's name for entropy) for
        classification; "squared_error" (the default, the only one) for regression.
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
        Default: ``"float32"`` with ``random_state``, else ``"float64"``.
    random_state : int, optional
        Grow scikit-learn's tree for this ``random_state`` bit for bit, depth first
        (:mod:`treegen.learn.cart_replay`; float32, numeric features). Without it, the
        level-by-level grower.

    Returns
    -------
    Model
    """
    cast = _cast(cast, random_state)
    params = Params.checked(dataset, criterion, max_depth, min_samples_split, min_samples_leaf,
                            min_impurity_decrease, class_weight, cast, min_weight_fraction_leaf)
    alpha = ccp_alpha
    if isinstance(ccp_alpha, str):
        if ccp_alpha != "cv":
            raise TreegenError(f"ccp_alpha must be a number >= 0 or 'cv', not {ccp_alpha!r}")
        if random_state is not None:
            raise TreegenError("ccp_alpha='cv' does not combine with random_state; give alpha a number")
    elif not alpha >= 0:
        raise TreegenError(f"ccp_alpha must be >= 0, not {ccp_alpha!r}")
    with collector_paused(), _as_scikit_learn_overflows():
        if ccp_alpha == "cv":  # the full tree, grown and pruned to find alpha, is the one pruned
            alpha, grown = choose_alpha(dataset, params, cv_folds, seed)
        else:
            grown = grow(dataset, params) if random_state is None else replay(dataset, params, random_state)
            if alpha > 0:
                grown = prune(grown, alpha)
        target, order = in_scikit_learns_order(dataset.target)
        tree = grown.tree(order)
    settings = {"max_depth": max_depth, "min_samples_split": min_samples_split,
                "min_samples_leaf": min_samples_leaf, "min_impurity_decrease": min_impurity_decrease,
                "ccp_alpha": ccp_alpha, "cast": cast, "class_weight": _plain(class_weight),
                "min_weight_fraction_leaf": min_weight_fraction_leaf}
    if random_state is not None:
        settings["random_state"] = random_state
    if ccp_alpha == "cv":
        settings.update(cv_folds=cv_folds, seed=seed)
    meta = {"algorithm": "cart", "criterion": params.criterion, "ccp_alpha": float(alpha),
            "params": {k: _plain(v) for k, v in settings.items()}}
    return Model(dataset.features, target, [tree], numeric=NumericSemantics(cast=cast), meta=meta)


def in_scikit_learns_order(target: Target) -> tuple[Target, np.ndarray | None]:
    """A classifier's target with its classes in scikit-learn's order (its ``classes_``), and that
    order as codes of the data's classes: the first of two classes equally likely is the label
    scikit-learn predicts, as ARGMAX picks the first. (None: regression, nothing to order.)"""
    if not target.is_classification:
        return target, None
    order = sorted_labels(target.classes)
    return Target(target.name, target.kind, tuple(target.classes[k] for k in order)), order


def _cast(cast: str | None, random_state) -> str:
    """The cast to learn with: scikit-learn's float32 when its tree is replayed."""
    if random_state is None:
        return "float64" if cast is None else cast
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)) \
            or not 0 <= random_state < 2 ** 32:
        raise TreegenError(f"random_state must be a whole number in [0, 2**32), not {random_state!r}")
    if cast not in (None, "float32"):
        raise TreegenError("random_state replays scikit-learn's float32 arithmetic: "
                           f"cast must be float32, not {cast!r}")
    return "float32"


def _plain(value):
    """A parameter as JSON can hold it (numpy numbers and class-weight dicts included)."""
    if isinstance(value, dict):
        return {str(k): float(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    return value


def pruning_path(dataset: Dataset, criterion: str | None = None, max_depth: int | None = None,
                 min_samples_split: int | float = 2, min_samples_leaf: int | float = 1,
                 min_impurity_decrease: float = 0.0, class_weight=None, cast: str | None = None,
                 min_weight_fraction_leaf: float = 0.0,
                 random_state: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The effective alphas of minimal cost-complexity pruning and the total leaf impurity of each
    subtree, as scikit-learn's ``cost_complexity_pruning_path`` (parameters as :func:`fit`).

    Returns
    -------
    alphas, impurities : ndarray
        Both start with the full tree (alpha 0) and end with the root alone -- unless a target
        beyond 1e154 leaves NaN alphas: they end where only those are left.
    """
    params = Params.checked(dataset, criterion, max_depth, min_samples_split, min_samples_leaf,
                            min_impurity_decrease, class_weight, _cast(cast, random_state),
                            min_weight_fraction_leaf)
    with _as_scikit_learn_overflows():
        if random_state is None:
            return _pruning_path(dataset, params)
        sequence = prune_sequence(replay(dataset, params, random_state))
    return np.array([0.0] + sequence.alphas), np.array(sequence.impurities)


def _as_scikit_learn_overflows():
    """A target beyond 1e154 squares to inf, and impurities to inf - inf: NaN, as in scikit-learn's
    C code, which says nothing of it; nor does numpy then."""
    return np.errstate(over="ignore", invalid="ignore")
