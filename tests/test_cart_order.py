"""CART with ``random_state``: scikit-learn's own tree, bit for bit, checked against scikit-learn.

scikit-learn sums a node's rows in the order its ``random_state`` sets (features drawn at random,
rows sorted in place by each, then swapped into the children); its node values, impurities, node
counts (with fractional weights it splits one-class nodes whose impurity is a rounding residue)
and its choice between exactly tied features follow from that order. ``random_state=N`` replays it
(treegen/learn/cart_replay.py): the fitted ``tree_`` arrays are compared with ``==``."""
from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn import datasets
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from test_cart import numeric_dataset
from treegen import modelio
from treegen.cli import main
from treegen.data import Dataset
from treegen.errors import TreegenError
from treegen.learn import fit
from treegen.learn.cart import pruning_path
from treegen.learn.cart_introsort import _swap_partition_in_python, introsort_order, swap_partition
from treegen.learn.cart_problem import EPSILON, Params
from treegen.learn.cart_replay import grow, left_sums
from treegen.model import NOMINAL, Feature, Target


def tree_arrays(model) -> dict:
    """The model's tree as scikit-learn's ``tree_`` arrays (leaves: feature and threshold -2)."""
    nodes = list(model.trees[0].nodes)
    inner = [not node.is_leaf for node in nodes]
    return {
        "children_left": np.array([n.children[0] if i else -1 for n, i in zip(nodes, inner)]),
        "children_right": np.array([n.children[1] if i else -1 for n, i in zip(nodes, inner)]),
        "feature": np.array([n.split.feature if i else -2 for n, i in zip(nodes, inner)]),
        "threshold": np.array([n.split.threshold if i else -2.0 for n, i in zip(nodes, inner)]),
        "missing_go_to_left": np.array([i and n.split.missing.child == 0 for n, i in zip(nodes, inner)]),
        "value": np.array([n.value for n in nodes]),
        "weighted_n_node_samples": np.array([n.n for n in nodes]),
    }


def assert_sklearns_tree(model, sk) -> None:
    tree = sk.tree_
    ours = tree_arrays(model)
    assert len(ours["value"]) == tree.node_count
    inner = tree.children_left >= 0
    for name in ("children_left", "children_right", "feature", "threshold", "weighted_n_node_samples"):
        assert (ours[name] == getattr(tree, name)).all(), name
    assert (ours["value"] == tree.value[:, 0, :]).all()
    assert (ours["missing_go_to_left"][inner] == tree.missing_go_to_left[inner].astype(bool)).all()


def assert_grown_is_sklearns(dataset, sk, random_state, criterion=None, class_weight=None, **rules):
    """The replay's own arrays -- impurities and row counts too -- against ``sk``'s."""
    params = Params.checked(dataset, criterion, rules.get("max_depth"), 2, rules.get("min_samples_leaf", 1),
                            0.0, class_weight, "float32")
    grown = grow(dataset, params, random_state)
    tree = sk.tree_
    assert len(grown) == tree.node_count
    assert (grown.impurity == tree.impurity).all()
    assert (grown.samples == tree.n_node_samples).all()
    assert (grown.weight == tree.weighted_n_node_samples).all()


def regression_data():
    X, y = datasets.make_regression(n_samples=800, n_features=6, noise=5.0, random_state=4)
    return X, y


def balanced_fractional(seed: int, n: int = 600):
    """Three unbalanced classes, fractional sample weights."""
    X, y = datasets.make_classification(n_samples=n, n_features=6, n_informative=4, n_classes=3,
                                        weights=[0.6, 0.3, 0.1], flip_y=0.05, random_state=seed)
    weights = np.random.default_rng(seed).random(n) * 3 + 0.1
    return X, y, weights


def test_regression_means_are_scikit_learns_under_each_random_state():
    """Every node value and impurity bit for bit: the rows of a node are summed in the order its
    parent's search left them. treegen's own grower sums in another order (last bits differ)."""
    X, y = regression_data()
    dataset = numeric_dataset(X, y, regression=True)
    for random_state in (0, 1, 2):
        sk = DecisionTreeRegressor(random_state=random_state, min_samples_leaf=5).fit(X, y)
        model = fit(dataset, "cart", min_samples_leaf=5, random_state=random_state)
        assert_sklearns_tree(model, sk)
        assert_grown_is_sklearns(dataset, sk, random_state, min_samples_leaf=5)
        assert model.meta["params"]["random_state"] == random_state and model.numeric.cast == "float32"
    own = tree_arrays(fit(dataset, "cart", cast="float32", min_samples_leaf=5))["value"]
    assert (own != sk.tree_.value[:, 0, :]).any()


def test_residue_splits_and_node_counts_follow_the_random_state():
    """Balanced class weights and fractional sample weights: scikit-learn splits nodes whose rows
    hold one class when the residue of its sums exceeds EPSILON, so one data set grows trees of
    different sizes under different random_states -- each one is grown here, node for node."""
    residue_splits = 0
    for seed, criterion in ((1, "gini"), (2, "entropy")):
        X, y, weights = balanced_fractional(seed, n=300)
        dataset = numeric_dataset(X, y, weights=weights)
        sizes = set()
        for random_state in range(3):
            sk = DecisionTreeClassifier(criterion=criterion, class_weight="balanced",
                                        random_state=random_state).fit(X, y, sample_weight=weights)
            model = fit(dataset, "cart", criterion=criterion, class_weight="balanced", random_state=random_state)
            assert_sklearns_tree(model, sk)
            if random_state == 0:
                assert_grown_is_sklearns(dataset, sk, random_state, criterion, "balanced")
            paths = sk.decision_path(X.astype(np.float32)).toarray().astype(bool)
            split = np.flatnonzero(sk.tree_.children_left >= 0)
            one_class = [i for i in split if len(np.unique(y[paths[:, i]])) == 1]
            assert all(EPSILON < sk.tree_.impurity[i] < 1e-14 for i in one_class)
            residue_splits += len(one_class)
            sizes.add(sk.tree_.node_count)
        assert len(sizes) > 1
    assert residue_splits > 0


def test_balanced_weights_count_the_classes_the_rows_hold():
    """A class declared (an ARFF header's) but held by no row: "balanced" divides by the classes
    present, as scikit-learn's compute_class_weight does, so the node weights are its own."""
    X, y, weights = balanced_fractional(3, n=200)
    y = np.where(y == 1, 0, y)  # classes 0 and 2 of three declared
    dataset = Dataset(numeric_dataset(X, y).features, [X[:, i] for i in range(X.shape[1])],
                      Target("y", "classification", ("0", "1", "2")), y, weights)
    sk = DecisionTreeClassifier(class_weight="balanced", random_state=0).fit(X, y, sample_weight=weights)
    assert_grown_is_sklearns(dataset, sk, 0, "gini", "balanced")


@pytest.mark.parametrize("kind", ["rounded", "integers", "iris"])
def test_tied_values_are_ordered_as_scikit_learns_introsort_leaves_them(kind):
    """Many equal values: the rows of a node are in the order scikit-learn's in-place introsort
    left them (median of 3, 3-way partition), not in a stable order."""
    if kind == "iris":
        X, y = datasets.load_iris(return_X_y=True)
        weights = np.random.default_rng(0).random(len(y)) + 0.5
        Learner, regression = DecisionTreeClassifier, False
    elif kind == "rounded":
        X, y = regression_data()
        X, y, weights = np.round(X[:400], 1), y[:400], None
        Learner, regression = DecisionTreeRegressor, True
    else:
        X, y = datasets.make_classification(n_samples=700, n_features=5, n_informative=3, random_state=3)
        X, weights = np.round(X * 3), np.random.default_rng(3).random(len(y)) * 2 + 0.1
        Learner, regression = DecisionTreeClassifier, False
    dataset = numeric_dataset(X, y, regression=regression, weights=weights)
    for random_state in (0, 7):
        sk = Learner(random_state=random_state).fit(X, y, sample_weight=weights)
        assert_sklearns_tree(fit(dataset, "cart", random_state=random_state), sk)


def test_exact_ties_across_features_go_to_scikit_learns_random_feature():
    """Two copies of a feature are equally good everywhere: scikit-learn keeps the first of them in
    its random order of features, so the feature ids change with the random_state."""
    X, y = datasets.make_classification(n_samples=300, n_features=3, n_informative=2, n_redundant=0,
                                        random_state=5)
    X = X[:, [0, 0, 1, 1, 2]]
    dataset = numeric_dataset(X, y)
    chosen = set()
    for random_state in range(4):
        sk = DecisionTreeClassifier(random_state=random_state, max_depth=4).fit(X, y)
        assert_sklearns_tree(fit(dataset, "cart", max_depth=4, random_state=random_state), sk)
        chosen.add(tuple(sk.tree_.feature))
    assert len(chosen) > 1  # (the thresholds are the same: the copies' values are)


@pytest.mark.parametrize("rules", [{"min_samples_leaf": 7, "max_depth": 6}, {"ccp_alpha": 0.002},
                                   {"min_weight_fraction_leaf": 0.01, "min_impurity_decrease": 0.0005},
                                   {"min_samples_split": 30, "ccp_alpha": 0.0005}])
def test_stopping_rules_and_pruning(rules):
    X, y, weights = balanced_fractional(4, n=500)
    X = np.round(X, 2)
    dataset = numeric_dataset(X, y, weights=weights)
    for random_state in (1, 2):
        sk = DecisionTreeClassifier(random_state=random_state, class_weight="balanced", **rules)
        sk.fit(X, y, sample_weight=weights)
        model = fit(dataset, "cart", class_weight="balanced", random_state=random_state, **rules)
        assert_sklearns_tree(model, sk)


def test_the_pruning_path_is_scikit_learns():
    """``cost_complexity_pruning_path`` of the replayed tree: alphas and impurities bit for bit."""
    from treegen.estimator import DecisionTreeClassifier as Estimator
    X, y, weights = balanced_fractional(3, n=300)
    for random_state in (0, 1):
        sk = DecisionTreeClassifier(random_state=random_state, class_weight="balanced")
        theirs = sk.cost_complexity_pruning_path(X, y, sample_weight=weights)
        ours = pruning_path(numeric_dataset(X, y, weights=weights), class_weight="balanced",
                            random_state=random_state)
        assert (ours[0] == theirs.ccp_alphas).all() and (ours[1] == theirs.impurities).all()
        estimator = Estimator(class_weight="balanced", random_state=random_state)
        assert (estimator.cost_complexity_pruning_path(X, y, weights).ccp_alphas == theirs.ccp_alphas).all()


def test_the_command_line_and_the_estimator_grow_scikit_learns_tree(tmp_path):
    """``treegen train --algorithm cart --random-state N`` on a CSV whose classes come in another
    order than scikit-learn's sorted labels, and the estimator's ``random_state``."""
    from treegen.estimator import DecisionTreeClassifier as Estimator
    X, y = datasets.make_classification(n_samples=400, n_features=4, n_informative=3, n_redundant=0,
                                        n_classes=3, random_state=6)
    X = np.round(X, 1)
    labels = np.array(["c", "a", "b"])[y]
    path = tmp_path / "data.csv"
    lines = ["x0,x1,x2,x3,label"] + [",".join([*map(repr, row.tolist()), label]) for row, label in zip(X, labels)]
    path.write_text("\n".join(lines) + "\n")
    sk = DecisionTreeClassifier(criterion="entropy", random_state=11).fit(X, labels)
    result = CliRunner().invoke(main, ["train", str(path), "--algorithm", "cart", "--criterion", "entropy",
                                       "--random-state", "11"], catch_exceptions=False)
    assert result.exit_code == 0
    model = modelio.loads(result.stdout)
    order = [model.target.classes.index(c) for c in sk.classes_]
    ours = tree_arrays(model)
    assert (ours["value"][:, order] == sk.tree_.value[:, 0, :]).all()
    assert (ours["threshold"] == sk.tree_.threshold).all() and len(ours["value"]) == sk.tree_.node_count
    assert model.meta["params"]["random_state"] == 11
    estimator = Estimator(criterion="entropy", random_state=11).fit(X, labels)
    assert_sklearns_tree(estimator.model_, sk)


def test_missing_values_go_where_scikit_learns_splitter_sends_them():
    """NaN: swapped to the end of a node before each sort, cuts tried with them right, then
    "present left, missing right" (threshold inf), then with them left; ties and fractional
    weights as well."""
    X, y = datasets.make_classification(n_samples=400, n_features=5, random_state=0)
    rng = np.random.default_rng(0)
    X[rng.random(X.shape) < 0.2] = np.nan
    X[:, 1] = np.round(X[:, 1], 1)
    weights = rng.random(len(y)) + 0.2
    dataset = numeric_dataset(X, y, weights=weights)
    routes = 0
    for random_state in range(2):
        sk = DecisionTreeClassifier(random_state=random_state, criterion="entropy").fit(X, y, sample_weight=weights)
        assert_sklearns_tree(fit(dataset, "cart", criterion="entropy", random_state=random_state), sk)
        routes += np.isinf(sk.tree_.threshold).sum() + sk.tree_.missing_go_to_left[sk.tree_.children_left >= 0].sum()
    assert routes > 0
    Xr, yr = regression_data()
    Xr, yr = Xr[:400], yr[:400]
    Xr[rng.random(Xr.shape) < 0.1] = np.nan
    sk = DecisionTreeRegressor(random_state=3, min_samples_leaf=3).fit(Xr, yr)
    assert_sklearns_tree(fit(numeric_dataset(Xr, yr, regression=True), "cart", random_state=3, min_samples_leaf=3), sk)


def test_what_random_state_does_not_replay_is_an_error():
    X, y = regression_data()
    dataset = numeric_dataset(X[:50], y[:50], regression=True)
    with pytest.raises(TreegenError, match="cast must be float32"):
        fit(dataset, "cart", cast="float64", random_state=0)
    with pytest.raises(TreegenError, match="random_state must be"):
        fit(dataset, "cart", random_state=-1)
    with pytest.raises(TreegenError, match="ccp_alpha='cv'"):
        fit(dataset, "cart", ccp_alpha="cv", random_state=0)
    features = (Feature("colour", NOMINAL, ("red", "blue")),) + dataset.features[1:]
    codes = np.arange(50) % 2
    nominal = Dataset(features, [codes, *dataset.columns[1:]], dataset.target, dataset.y, dataset.weights)
    with pytest.raises(TreegenError, match="no nominal features"):
        fit(nominal, "cart", random_state=0)
    with pytest.raises(TreegenError, match="too large for float32"):
        fit(numeric_dataset(np.full((4, 1), 1e39), np.arange(4.0), regression=True), "cart", random_state=0)


@pytest.mark.parametrize("shape", ["random", "sorted", "reversed", "few values"])
def test_the_introsort_order_is_scikit_learns(shape):
    """Against scikit-learn's own ``simultaneous_sort`` (its Python wrapper): ties end where it
    leaves them, through the numpy partition of big segments, the Python loops of small ones and
    the heapsort of deep ones (sorted and reversed inputs with ties reach it)."""
    from sklearn.utils._sorting import _py_simultaneous_sort
    rng = np.random.default_rng(len(shape))
    for n in (40, 700, 6000):
        values = np.round(rng.normal(size=n), 1).astype(np.float32)
        if shape == "sorted":
            values = np.sort(values)
        elif shape == "reversed":
            values = np.sort(values)[::-1].copy()
        elif shape == "few values":
            values = rng.integers(0, 3, n).astype(np.float32)
        theirs = np.arange(n, dtype=np.intp)
        _py_simultaneous_sort(values.copy(), theirs, n, use_three_way_partition=True)
        assert (introsort_order(values) == theirs).all()


def test_the_replays_building_blocks():
    """The swap partition (numpy for many rows, the loop for few) and the update directions."""
    assert swap_partition(np.array([False, True, False, True, True])).tolist() == [4, 1, 3, 2, 0]
    rng = np.random.default_rng(0)
    for share in (0.0, 0.1, 0.5, 0.9, 1.0):
        goes_left = rng.random(3000) < share
        assert (swap_partition(goes_left) == _swap_partition_in_python(goes_left.tolist())).all()
    stats = np.array([[0.1, 0.2, 0.3, 0.4, 0.5, 0.6]])
    total = np.cumsum(stats, axis=1)[:, -1]
    left = left_sums(stats, total, np.array([1, 5]))  # 5: back from the end
    assert left[0, 0] == 0.1 and left[0, 1] == total[0] - 0.6


def test_entropys_splits_do_not_turn_on_the_last_bit_of_numpys_log(monkeypatch):
    """numpy's log is on some CPUs (AVX-512) a bit off the C library's, which scikit-learn calls:
    the searches score with it, then take the candidates near each best again with the C library's
    (treegen/learn/libm.py, ``exact_near_best``). Here the quick log is made a bit off on purpose --
    every third value one ulp up, every third one down, so that even exact ties are broken -- and
    every tree is still grown node for node as with exact logarithms: the replay's (impurities too)
    and scikit-learn's, the level grower's, and nominal subset splits."""
    from test_cart import nominal_dataset
    from treegen.learn import libm

    def off_by_a_bit(values):
        exact = libm.log(values)
        flat = exact.ravel()
        flat[0::3] = np.nextafter(flat[0::3], np.inf)
        flat[1::3] = np.nextafter(flat[1::3], -np.inf)
        return flat.reshape(exact.shape)

    X, y, weights = balanced_fractional(2, n=300)
    ties = numeric_dataset(np.round(X, 1), y, weights=weights)
    Xm, ym = datasets.make_classification(n_samples=400, n_features=5, n_classes=3, n_informative=3, random_state=0)
    Xm[np.random.default_rng(0).random(Xm.shape) < 0.2] = np.nan
    missing = numeric_dataset(np.round(Xm, 1), ym)
    colors = ["red", "blue", "green", "white"] * 6 + ["red", None]
    nominal = nominal_dataset(colors, ["a", "b", "a", "c"] * 6 + ["b", "c"], ("red", "blue", "green", "white"),
                              ("a", "b", "c"))
    fits = [(ties, {"class_weight": "balanced"}), (ties, {"random_state": 0, "class_weight": "balanced"}),
            (missing, {}), (missing, {"random_state": 1}), (nominal, {})]
    exact = [fit(data, "cart", criterion="entropy", **params) for data, params in fits]
    monkeypatch.setattr(libm, "quick_log", off_by_a_bit)
    monkeypatch.setattr(libm, "numpy_agrees", lambda name: False)
    for (data, params), model in zip(fits, exact):
        assert modelio.dumps(fit(data, "cart", criterion="entropy", **params)) == modelio.dumps(model)
    sk = DecisionTreeClassifier(criterion="entropy", class_weight="balanced", random_state=0)
    sk.fit(np.round(X, 1), y, sample_weight=weights)
    assert_grown_is_sklearns(ties, sk, 0, "entropy", "balanced")
    assert sum(len(model.trees[0].nodes) for model in exact) > 100


def test_eight_or_more_classes_are_added_one_class_at_a_time():
    """scikit-learn adds a node's gini squares and entropy terms one class after another; numpy's sum adds a
    run of 8 or more pairwise (one candidate's classes), a last bit that turned near-ties between splits the other
    way: trees of 8 to 10 classes with fractional weights grew other splits (4 of these 200, before)."""
    for seed in range(200):
        rng = np.random.default_rng(seed)
        n, k = int(rng.choice([12, 20, 40, 100])), int(rng.integers(8, 11))
        X = rng.normal(size=(n, 4)) if seed % 3 else rng.integers(0, 6, (n, 4)).astype(float)
        y = rng.integers(0, k, n)
        criterion = ["gini", "entropy"][seed % 2]
        w = np.ones(n) if (seed // 2) % 2 == 0 else np.round(rng.random(n) * 3 + .05, 2)
        sk = DecisionTreeClassifier(criterion=criterion, random_state=seed % 5).fit(X, y, sample_weight=w).tree_
        ours = tree_arrays(fit(numeric_dataset(X, y, weights=w), "cart", criterion=criterion, random_state=seed % 5))
        assert len(ours["value"]) == sk.node_count, seed
        for column in ("feature", "threshold", "children_left"):
            assert np.array_equal(ours[column], getattr(sk, column)), (seed, column)
