"""Why treegen's CART grows scikit-learn's splits but not always its last bits, checked against
scikit-learn itself: scikit-learn sums a node's rows in an order that its ``random_state`` sets.

:func:`replay` walks a fitted scikit-learn tree as scikit-learn 1.9 built it and redoes its
arithmetic in its order. On data without tied values it reproduces every node's value and
impurity bit for bit -- regression means, and with balanced class weights and fractional sample
weights the rounding residues on which scikit-learn splits nodes of one class, so that one data
set grows trees of different sizes under different random_states. With tied feature values a stable order of the ties is not
scikit-learn's: its in-place introsort leaves ties in an order that depends on every sort before.
treegen does not replay this order (treegen/learn/cart.py, "What is not bit for bit, and why")."""
from __future__ import annotations

import math

import numpy as np
from sklearn import datasets
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from test_cart import numeric_dataset
from treegen.learn import fit

RAND_R_MAX = 2147483647  # sklearn/utils/_random.pxd
FEATURE_THRESHOLD = np.float32(1e-7)
EPSILON = np.finfo(np.float64).eps  # sklearn/tree/_tree.pyx


def next_random(state: list) -> int:
    """scikit-learn's ``our_rand_r`` (sklearn/utils/_random.pxd): a 32-bit xorshift."""
    s = state[0] or 1
    s ^= (s << 13) & 0xFFFFFFFF
    s ^= s >> 17
    s ^= (s << 5) & 0xFFFFFFFF
    state[0] = s
    return s % (RAND_R_MAX + 1)


class _Sums:
    """scikit-learn's criterion arithmetic (sklearn/tree/_criterion.pyx) over rows in a given order:
    class weights or [sum w*y], their weight and (regression) sum of w*y*y, added one row at a time."""

    def __init__(self, y, weights, classes: int, criterion: str):
        self.y, self.w, self.classes, self.criterion = y, weights, classes, criterion

    def total(self, rows):
        sums, weight, squares = [0.0] * max(self.classes, 1), 0.0, 0.0
        for i in rows:
            self._add(sums, i, 1.0)
            if not self.classes:
                squares += self.w[i] * self.y[i] * self.y[i]
            weight += self.w[i]
        return sums, weight, squares

    def _add(self, sums, i, sign):
        if self.classes:
            sums[int(self.y[i])] += sign * self.w[i]
        else:
            sums[0] += sign * (self.w[i] * self.y[i])

    def left_of(self, rows, cut, node):
        """``Criterion.update(cut)`` from the start: the left side summed forward, or, when the
        right side is shorter, the node's sums less the right rows taken from the end."""
        sums, weight, _ = node
        if cut <= len(rows) - cut:
            return self.total(rows[:cut])[:2]
        left, left_weight = list(sums), weight
        for i in reversed(rows[cut:]):
            self._add(left, i, -1.0)
            left_weight -= self.w[i]
        return left, left_weight

    def impurity(self, sums, weight, squares=0.0):
        if not self.classes:  # C compilers make ``mean ** 2.0`` a product; Python's pow can differ
            mean = sums[0] / weight
            return squares / weight - mean * mean
        if self.criterion == "gini":
            squared = 0.0
            for count in sums:
                squared += count * count
            return 1.0 - squared / (weight * weight)
        entropy = 0.0
        for count in sums:
            if count > 0.0:
                count /= weight
                entropy -= count * (math.log(count) / math.log(2.0))
        return entropy


def _draw_and_sort(X, samples, start, end, features, known: int, state: list) -> int:
    """``node_split_best``'s feature draws (sklearn/tree/_splitter.pyx, max_features=None): a
    Fisher-Yates shuffle of ``features`` that skips known constant ones, sorting the node's rows
    in place by each drawn feature (sklearn/tree/_partitioner.pyx); the constants found."""
    f_i, visited, found, drawn = len(features), 0, 0, 0
    while f_i > known + found and (visited < len(features) or visited <= found + drawn):
        visited += 1
        f_j = drawn + next_random(state) % (f_i - found - drawn)
        if f_j < known:
            features[drawn], features[f_j] = features[f_j], features[drawn]
            drawn += 1
            continue
        f_j += found
        rows = samples[start:end]
        values = X[rows, features[f_j]]
        order = np.argsort(values, kind="stable")  # scikit-learn's introsort agrees without ties
        samples[start:end] = [rows[k] for k in order]
        if values[order[-1]] <= values[order[0]] + FEATURE_THRESHOLD:
            features[f_j], features[known + found] = features[known + found], features[f_j]
            found += 1
            continue
        f_i -= 1
        features[f_i], features[f_j] = features[f_j], features[f_i]
    return found


def _partition(X, samples, start, end, feature, threshold) -> int:
    """``partition_samples_final``: rows going right swap with the last unseen row."""
    low, high = start, end
    while low < high:
        if X[samples[low], feature] <= threshold:
            low += 1
        else:
            high -= 1
            samples[low], samples[high] = samples[high], samples[low]
    return high


def replay(sk, X, y, weights, random_state: int, classes: int = 0, criterion: str = "gini",
           min_samples_leaf: int = 1):
    """Each node's value, impurity and leaf test before the search (too few rows, or "impurity <=
    EPSILON"), computed in scikit-learn's order of rows along its fitted tree ``sk`` (stopping
    rules at their defaults but ``min_samples_leaf``; no missing values). The
    builder (sklearn/tree/_tree.pyx, DepthFirstTreeBuilder) visits nodes depth first, left first
    (scikit-learn's node ids); its splitter's random state is drawn once from ``random_state``."""
    tree, X = sk.tree_, X.astype(np.float32)
    state = [np.random.RandomState(random_state).randint(0, RAND_R_MAX)]
    sums = _Sums(y, weights, classes, criterion)
    samples = [i for i in range(len(y)) if weights[i] != 0]
    features = list(range(X.shape[1]))
    constant = list(features)
    values, impurities, leaf_test = [], [], []
    stack = [(0, len(samples), None, 0)]  # start, end, impurity from the parent's split, known constants
    while stack:
        start, end, impurity, known = stack.pop()
        node = len(values)
        total = sums.total(samples[start:end])
        impurity = sums.impurity(*total) if impurity is None else impurity
        values.append([s / total[1] for s in total[0]])
        impurities.append(impurity)
        leaf_test.append(end - start < max(2, 2 * min_samples_leaf) or impurity <= EPSILON)
        if leaf_test[-1]:
            continue
        found = _draw_and_sort(X, samples, start, end, features, known, state)
        features[:known] = constant[:known]
        constant[known:known + found] = features[known:known + found]
        if tree.children_left[node] < 0:
            continue
        cut = _partition(X, samples, start, end, tree.feature[node], tree.threshold[node])
        rows = samples[start:end]
        left, w_left = sums.left_of(rows, cut - start, total)
        right, w_right = [t - s for t, s in zip(total[0], left)], total[1] - w_left
        if classes:
            impurity_left, impurity_right = sums.impurity(left, w_left), sums.impurity(right, w_right)
        else:
            squares_left = sums.total(rows[:cut - start])[2]
            impurity_left = sums.impurity(left, w_left, squares_left)
            impurity_right = sums.impurity(right, w_right, total[2] - squares_left)
        stack.append((cut, end, impurity_right, known + found))
        stack.append((start, cut, impurity_left, known + found))
    return np.array(values), np.array(impurities), np.array(leaf_test)


def balanced_fractional(seed: int, n: int = 600):
    """Three unbalanced classes without tied values, fractional sample weights."""
    X, y = datasets.make_classification(n_samples=n, n_features=6, n_informative=4, n_classes=3,
                                        weights=[0.6, 0.3, 0.1], flip_y=0.05, random_state=seed)
    weights = np.random.default_rng(seed).random(n) * 3 + 0.1
    return X, y, weights


def test_scikit_learns_regression_means_are_summed_in_its_random_order():
    """Every node value and impurity of scikit-learn's regression tree, bit for bit, under three
    random_states: the rows of a node are summed in the order its parent's search left them --
    sorted by the last feature drawn there, then partitioned by swaps. treegen's means differ in
    the last bits."""
    X, y = datasets.make_regression(n_samples=800, n_features=6, noise=5.0, random_state=4)
    assert all(len(np.unique(X[:, j].astype(np.float32))) == len(y) for j in range(6))  # no ties
    model = fit(numeric_dataset(X, y, regression=True), "cart", cast="float32", min_samples_leaf=5)
    ours = np.array([node.value[0] for node in model.trees[0].nodes])
    for random_state in (0, 1, 2):
        sk = DecisionTreeRegressor(random_state=random_state, min_samples_leaf=5).fit(X, y)
        values, impurities, leaf_test = replay(sk, X, y, np.ones(len(y)), random_state, min_samples_leaf=5)
        assert (values[:, 0] == sk.tree_.value[:, 0, 0]).all() and (impurities == sk.tree_.impurity).all()
        assert (leaf_test == (sk.tree_.children_left < 0)).all()
        assert len(ours) == sk.tree_.node_count and (ours != sk.tree_.value[:, 0, 0]).any()
        np.testing.assert_allclose(ours, sk.tree_.value[:, 0, 0], rtol=1e-13)


def test_with_tied_values_the_order_of_ties_matters_too():
    """Replaying the random draws is not enough when a feature holds equal values: ordering the
    ties stably misses scikit-learn's value on some nodes, as its introsort orders them otherwise."""
    X, y = datasets.make_regression(n_samples=800, n_features=6, noise=5.0, random_state=4)
    X = np.round(X, 1)
    sk = DecisionTreeRegressor(random_state=0, min_samples_leaf=5).fit(X, y)
    values, _, _ = replay(sk, X, y, np.ones(len(y)), 0, min_samples_leaf=5)
    assert (values[:, 0] != sk.tree_.value[:, 0, 0]).any()
    np.testing.assert_allclose(values[:, 0], sk.tree_.value[:, 0, 0], rtol=1e-13)


def test_scikit_learn_splits_nodes_of_one_class_on_residues_of_its_order():
    """Balanced class weights and fractional sample weights: one data set, trees of different sizes
    under different random_states. The replay's impurities are scikit-learn's bit for bit, and its
    "impurity <= EPSILON" test is where scikit-learn stops, node for node: the extra splits are of
    nodes whose rows hold one class and whose impurity is a residue of sums in that order. treegen
    makes those nodes leaves; its labels are scikit-learn's under every random_state."""
    residue_splits = 0
    for seed, criterion in ((1, "gini"), (2, "entropy")):
        X, y, weights = balanced_fractional(seed)
        balanced = (len(y) / (3 * np.bincount(y)))[y]
        model = fit(numeric_dataset(X, y, weights=weights), "cart", criterion=criterion, cast="float32",
                    class_weight="balanced")
        rows = numeric_dataset(X, y, weights=weights).rows()
        labels = np.array([int(model.predict(row)) for row in rows])
        sizes = set()
        for random_state in range(4):
            sk = DecisionTreeClassifier(criterion=criterion, class_weight="balanced",
                                        random_state=random_state).fit(X, y, sample_weight=weights)
            values, impurities, leaf_test = replay(sk, X, y, weights * balanced, random_state, 3, criterion)
            assert (values == sk.tree_.value[:, 0, :]).all() and (impurities == sk.tree_.impurity).all()
            assert (leaf_test == (sk.tree_.children_left < 0)).all()
            paths = sk.decision_path(X.astype(np.float32)).toarray().astype(bool)
            split = np.flatnonzero(sk.tree_.children_left >= 0)
            one_class = [i for i in split if len(np.unique(y[paths[:, i]])) == 1]
            assert all(EPSILON < impurities[i] < 1e-14 for i in one_class)
            residue_splits += len(one_class)
            assert (labels == sk.predict(X)).all()
            sizes.add(sk.tree_.node_count)
        assert len(sizes) > 1 and len(model.trees[0].nodes) <= min(sizes)
    assert residue_splits > 0
