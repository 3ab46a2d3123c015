"""The scikit-learn-compatible estimators: inside scikit-learn's tools, on frames, arrays and rows,
and without scikit-learn installed at all."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn import datasets
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier as SkClassifier
from sklearn.tree import DecisionTreeRegressor as SkRegressor

from treegen.errors import TreegenError
from treegen.estimator import DecisionTreeClassifier, DecisionTreeRegressor
from treegen.model import Model

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("estimator", [DecisionTreeClassifier(), DecisionTreeRegressor()])
def test_scikit_learns_estimator_checks_pass(estimator):
    from sklearn.utils.estimator_checks import check_estimator
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(estimator, on_fail=None)
    failed = [(r["check_name"], str(r["exception"])[:200]) for r in results if r["status"] == "failed"]
    assert failed == [] and len(results) > 50


def test_cross_val_score_and_grid_search():
    X, y = datasets.load_iris(return_X_y=True)
    scores = cross_val_score(DecisionTreeClassifier(), X, y, cv=5)
    assert len(scores) == 5 and scores.mean() > 0.9
    search = GridSearchCV(DecisionTreeClassifier(), {"max_depth": [1, 3]}, cv=3).fit(X, y)
    assert search.best_params_ == {"max_depth": 3}


def test_pipeline():
    X, y = datasets.load_wine(return_X_y=True)
    pipe = make_pipeline(StandardScaler(), DecisionTreeClassifier(max_depth=3)).fit(X, y)
    assert pipe.score(X, y) > 0.9
    assert isinstance(pipe[-1].model_, Model)


def test_get_set_params_and_clone():
    tree = DecisionTreeClassifier(max_depth=4, criterion="entropy")
    params = tree.get_params()
    assert params["max_depth"] == 4 and params["criterion"] == "entropy" and params["algorithm"] == "cart"
    assert tree.set_params(min_samples_leaf=3) is tree and tree.min_samples_leaf == 3
    copy = clone(tree)
    assert copy.get_params() == tree.get_params() and copy is not tree
    assert "class_weight" not in DecisionTreeRegressor().get_params()


def test_feature_importances_are_scikit_learns_on_iris():
    """Iris has exact ties (petal length and width both split off setosa); scikit-learn breaks them
    by a random feature order, so compare with a random_state that makes the same choices."""
    X, y = datasets.load_iris(return_X_y=True)
    ours = DecisionTreeClassifier(cast="float32").fit(X, y)
    for seed in range(50):
        sk = SkClassifier(random_state=seed).fit(X, y)
        if sk.tree_.node_count == len(ours.model_.trees[0].nodes) and all(
                (node.split.feature if node.split else -2) == sk.tree_.feature[i]
                for i, node in enumerate(ours.model_.trees[0].nodes)):
            np.testing.assert_allclose(ours.feature_importances_, sk.feature_importances_, atol=1e-12)
            assert (ours.predict(X) == sk.predict(X)).all()
            np.testing.assert_allclose(ours.predict_proba(X), sk.predict_proba(X))
            return
    pytest.fail("no random_state of scikit-learn grows treegen's iris tree")


def test_pruning_path_like_scikit_learn():
    X, y = datasets.load_iris(return_X_y=True)
    ours = DecisionTreeClassifier(cast="float32").cost_complexity_pruning_path(X, y)
    theirs = SkClassifier(random_state=0).cost_complexity_pruning_path(X, y)
    np.testing.assert_allclose(ours.ccp_alphas, theirs.ccp_alphas, rtol=1e-12)
    np.testing.assert_allclose(ours.impurities, theirs.impurities, rtol=1e-12)


def test_regressor_matches_scikit_learn():
    X, y = datasets.load_diabetes(return_X_y=True)
    ours = DecisionTreeRegressor(max_depth=4, cast="float32").fit(X, y)
    sk = SkRegressor(max_depth=4, random_state=0).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), sk.predict(X), rtol=1e-12)
    assert ours.score(X, y) == pytest.approx(sk.score(X, y), rel=1e-12)
    assert ours.feature_importances_.sum() == pytest.approx(1.0)
    assert np.argmax(ours.feature_importances_) == np.argmax(sk.feature_importances_)


def test_dataframe_with_nominal_and_missing_values():
    frame = pd.DataFrame({
        "color": pd.Categorical(["red", "blue", "green", None] * 10),
        "size": [1.0, 2.0, np.nan, 4.0] * 10,
        "shape": ["round", "square", "round", "square"] * 10,
    })
    y = np.array(["yes", "no", "yes", "no"] * 10)
    tree = DecisionTreeClassifier().fit(frame, y)
    assert list(tree.feature_names_in_) == ["color", "size", "shape"]
    assert [f.kind for f in tree.model_.features] == ["nominal", "numeric", "nominal"]
    assert (tree.predict(frame) == y).all() and tree.score(frame, y) == 1.0
    unseen = pd.DataFrame({"color": ["purple"], "size": [np.nan], "shape": ["oval"]})
    assert tree.predict(unseen)[0] in ("yes", "no")
    proba = tree.predict_proba(frame)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert list(tree.classes_) == ["no", "yes"]


def test_nominal_values_are_read_as_the_model_reads_them():
    """The estimator's predict reads a value of a nominal column as model_.predict and every target do
    (category_of): by str(), a float32 was its float32 text (a category of its own) and True was "True",
    which the categories "true"/"false" of the training text do not hold."""
    x = pd.Series([np.float32(0.1), np.float32(0.2), "a"] * 6, dtype=object)
    flags = pd.Series(["true", "false", "true"] * 6, dtype=object)
    y = ["p", "q", "r"] * 6
    tree = DecisionTreeClassifier().fit(pd.DataFrame({"x": x}), y)
    assert (tree.predict(pd.DataFrame({"x": x})) == y).all()
    assert tree.model_.features[0].categories == ("0.10000000149011612", "0.20000000298023224", "a")
    by_flag = DecisionTreeClassifier().fit(pd.DataFrame({"flag": flags}), [v == "true" for v in flags])
    rows = pd.DataFrame({"flag": pd.Series([True, False, np.float32(0.1)], dtype=object)})
    expected = [by_flag.model_.predict({"flag": v}) for v in rows["flag"]]
    assert [str(label) for label in by_flag.predict(rows)] == expected == ["True", "False", "True"]


def test_lists_of_rows_and_feature_names():
    rows = [[1.0, "a"], [2.0, "b"], [3.0, "a"], [4.0, "b"]] * 5
    y = [0, 1, 0, 1] * 5
    tree = DecisionTreeClassifier(feature_names=["n", "letter"]).fit(rows, y)
    assert [f.name for f in tree.model_.features] == ["n", "letter"]
    assert list(tree.predict([[9.0, "b"], [9.0, "a"]])) == [1, 0]
    dict_rows = [{"n": r[0], "letter": r[1]} for r in rows]
    by_dict = DecisionTreeClassifier().fit(dict_rows, y)
    assert list(by_dict.predict([{"letter": "b", "n": 0.0}])) == [1]
    assert by_dict.predict([{"n": 1.0}])[0] in (0, 1)  # a key left out is a missing value
    with pytest.raises(TreegenError):
        by_dict.predict(pd.DataFrame({"n": [1.0]}))  # a column left out is an error


def test_sample_weight_and_class_weight():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    weights = np.where(y == 0, 5.0, 1.0)
    weighted = DecisionTreeClassifier(max_depth=2).fit(X, y, sample_weight=weights)
    balanced = DecisionTreeClassifier(max_depth=2, class_weight={0: 5.0}).fit(X, y)
    assert weighted.model_.trees[0].nodes[0].counts == balanced.model_.trees[0].nodes[0].counts
    assert weighted.model_.trees[0].nodes[0].counts[0] == 5.0 * np.sum(y == 0)


def test_user_errors():
    X, y = datasets.load_iris(return_X_y=True)
    with pytest.raises(TreegenError):
        DecisionTreeClassifier().fit(X, y[:-1])
    with pytest.raises(TreegenError):
        DecisionTreeClassifier(algorithm="c5").fit(X, y)
    with pytest.raises(TreegenError, match="unknown algorithm 'J48'.*did you mean 'c45'"):
        DecisionTreeClassifier(algorithm="J48").fit(X, y)
    with pytest.raises(TreegenError):
        DecisionTreeClassifier(feature_names=["a", "b"]).fit(X, y)
    with pytest.raises(TreegenError):
        DecisionTreeClassifier().fit(X[:, 0], y)


def test_other_algorithms():
    X, y = datasets.load_iris(return_X_y=True)
    tree = DecisionTreeClassifier(algorithm="c45").fit(X, y)
    assert tree.model_.meta.get("algorithm", "c45") != "cart"
    assert tree.score(X, y) > 0.9 and tree.feature_importances_.sum() == pytest.approx(1.0)


def test_pruned_by_cross_validation():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    tree = DecisionTreeClassifier(ccp_alpha="cv", seed=1).fit(X, y)
    assert tree.model_.meta["ccp_alpha"] > 0
    assert len(tree.model_.trees[0].nodes) < len(DecisionTreeClassifier().fit(X, y).model_.trees[0].nodes)


def test_works_without_scikit_learn(tmp_path):
    """A meta-path finder refuses every sklearn import; the estimators still fit, predict, score
    and take parameters."""
    (tmp_path / "sitecustomize.py").write_text(textwrap.dedent("""
        import sys

        class BlockSklearn:
            def find_spec(self, name, path=None, target=None):
                if name == "sklearn" or name.startswith("sklearn."):
                    raise ImportError("scikit-learn is hidden for this test")
                return None

        sys.meta_path.insert(0, BlockSklearn())
    """))
    script = textwrap.dedent("""
        import sys
        import numpy as np
        try:
            import sklearn
        except ImportError:
            pass
        else:
            raise SystemExit("scikit-learn was not hidden")
        from treegen.estimator import DecisionTreeClassifier, DecisionTreeRegressor
        rng = np.random.default_rng(0)
        X = rng.normal(size=(200, 3))
        y = (X[:, 0] + X[:, 1] > 0).astype(int)
        tree = DecisionTreeClassifier(max_depth=3).fit(X, y)
        assert tree.score(X, y) > 0.8
        assert tree.get_params()["max_depth"] == 3
        tree.set_params(max_depth=5)
        assert tree.max_depth == 5 and "max_depth=5" in repr(tree)
        try:
            tree.set_params(depth=1)
        except ValueError:
            pass
        else:
            raise SystemExit("unknown parameter accepted")
        reg = DecisionTreeRegressor(max_depth=4).fit(X, X[:, 0] * 2.0)
        assert reg.score(X, X[:, 0] * 2.0) > 0.8
        assert not any(m == "sklearn" or m.startswith("sklearn.") for m in sys.modules)
        print("ok")
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), ROOT])}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_c45_labels_as_the_model_decides():
    """J48's rules reach the estimator too: a tie goes to the first class (Decision.WEKA) and under -A
    the label comes from the unsmoothed label values -- predict is model.predict on every row, and on
    some rows not the argmax of predict_proba."""
    import io
    path = os.path.join(ROOT, "tests", "fixtures", "j48", "laplace-ties.arff")
    with open(path, encoding="utf-8") as handle:
        data = handle.read().split("@data\n", 1)[1]
    frame = pd.read_csv(io.StringIO(data), header=None, names=["x0", "n1", "x2", "n3", "class"], na_values="?",
                        comment="%", dtype={"n1": object, "n3": object})
    X, y = frame.drop(columns="class"), frame["class"]
    tree = DecisionTreeClassifier(algorithm="c45", learner_params={"laplace": True}).fit(X, y)
    rows = [{k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in row.items()}
            for row in X.to_dict("records")]
    assert list(tree.predict(X)) == [tree.model_.predict(row) for row in rows]
    assert any(tree.predict(X) != tree.classes_[np.argmax(tree.predict_proba(X), axis=1)])


MISSING_LABELS = [
    pd.Series(["no", np.nan, "yes", "no"]),  # as pd.read_csv reads an empty label
    ["no", None, "yes", "no"],
    pd.Series(["no", pd.NA, "yes", "no"], dtype="string"),
    pd.Series(["no", None, "yes", "no"], dtype="category"),
    np.array([1, None, 2, 1], dtype=object),
]


@pytest.mark.parametrize("estimator", [DecisionTreeClassifier, DecisionTreeRegressor])
@pytest.mark.parametrize("y", MISSING_LABELS, ids=["nan", "none", "pandas-na", "category", "object-ints"])
def test_a_missing_label_of_any_type_is_a_value_error(estimator, y):
    """Not a TypeError from sorting the labels: tools catch ValueError, as scikit-learn raises it."""
    X = pd.DataFrame({"outlook": ["sunny", "rain", "overcast", "sunny"]})
    with pytest.raises(ValueError, match="y contains"):
        estimator().fit(X, y)


def test_pandas_na_in_x_is_missing_not_a_category():
    X = pd.DataFrame({"a": pd.Series(["x", pd.NA, "y", "x"], dtype="string")})
    assert DecisionTreeClassifier().fit(X, [0, 1, 1, 0]).model_.features[0].categories == ("x", "y")


C45_IGNORED = [dict(max_depth=1), dict(min_samples_leaf=50), dict(min_samples_split=200), dict(class_weight="balanced"),
               dict(ccp_alpha=0.5), dict(criterion="entropy"), dict(random_state=7), dict(cast="float32"),
               dict(min_impurity_decrease=0.5), dict(min_weight_fraction_leaf=0.1), dict(cv_folds=3)]


@pytest.mark.parametrize("params", C45_IGNORED, ids=lambda p: next(iter(p)))
def test_a_parameter_c45_does_not_take_is_refused(params):
    """Left unread, it would give the default C4.5 tree (a grid search over it searches nothing):
    refused as treegen.train refuses it, naming the parameter and the learners that take it."""
    X, y = datasets.load_breast_cancer(return_X_y=True)
    (name, value), = params.items()
    takers = "'id3' or 'cart'" if name == "max_depth" else "'cart'"
    with pytest.raises(ValueError, match=f"algorithm='c45' does not use {name}=.*only algorithm={takers} does"):
        DecisionTreeClassifier(algorithm="c45", **params).fit(X, y)
    with pytest.raises(TreegenError, match=f"c45 does not take {name}"):
        import treegen
        treegen.train(pd.DataFrame(X).assign(y=y), target="y", algorithm="c45", **params)


def test_id3_refuses_what_it_does_not_take_and_defaults_pass():
    X = pd.read_csv(os.path.join(ROOT, "examples", "play_tennis.csv"))
    X, y = X.drop(columns="play"), X["play"]
    for params in (dict(min_samples_leaf=5), dict(class_weight="balanced"), dict(seed=3)):
        with pytest.raises(ValueError, match=f"algorithm='id3' does not use {next(iter(params))}"):
            DecisionTreeClassifier(algorithm="id3", **params).fit(X, y)
    assert DecisionTreeClassifier(algorithm="id3", max_depth=1).fit(X, y).model_.trees[0].depth() == 1
    # a parameter set to its default is no conflict (GridSearchCV's clone sets every one)
    explicit = DecisionTreeClassifier(algorithm="c45", max_depth=None, min_samples_leaf=1, criterion="gini").fit(X, y)
    assert explicit.model_.trees == DecisionTreeClassifier(algorithm="c45").fit(X, y).model_.trees
    with pytest.raises(ValueError, match="cost_complexity_pruning_path is CART's, not algorithm='c45'"):
        DecisionTreeClassifier(algorithm="c45").cost_complexity_pruning_path(X, y)


def test_grid_search_over_a_parameter_c45_ignores_fails_and_over_its_own_searches():
    X, y = datasets.load_breast_cancer(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="does not use max_depth"):
            GridSearchCV(DecisionTreeClassifier(algorithm="c45"), {"max_depth": [1, 3]}, cv=3).fit(X, y)
    grid = {"learner_params": [{"min_leaf": 2}, {"min_leaf": 100}]}
    search = GridSearchCV(DecisionTreeClassifier(algorithm="c45"), grid, cv=3).fit(X, y)
    scores = search.cv_results_["mean_test_score"]
    assert scores[0] != scores[1]


def test_learner_params_may_not_override_a_parameter_of_the_estimator():
    """learner_params={"max_depth": 3} overrode max_depth, so a grid search over max_depth searched nothing."""
    X, y = datasets.load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="learner_params gives max_depth, a parameter of DecisionTreeClassifier "
                                         "itself: set max_depth=3 there"):
        DecisionTreeClassifier(max_depth=1, learner_params={"max_depth": 3}).fit(X, y)
    with pytest.raises(ValueError, match="learner_params gives seed"):
        DecisionTreeClassifier(algorithm="c45", learner_params={"reduced_error": True, "seed": 5}).fit(X, y)


def test_c45_seed_defaults_to_j48s_as_train():
    """seed's default is each learner's own (cart 0, c45 1 as J48's -Q 1): the estimator's c45 is train's."""
    import treegen
    X, y = datasets.load_iris(return_X_y=True, as_frame=True)
    ours = DecisionTreeClassifier(algorithm="c45", learner_params={"reduced_error": True}).fit(X, y)
    theirs = treegen.train(X.assign(target=y), target="target", algorithm="c45", reduced_error=True)
    assert ours.model_.meta == theirs.meta and ours.model_.meta["params"]["seed"] == 1
    assert DecisionTreeClassifier(ccp_alpha="cv").fit(X, y).model_.meta["ccp_alpha"] == \
        DecisionTreeClassifier(ccp_alpha="cv", seed=0).fit(X, y).model_.meta["ccp_alpha"]


def test_a_category_column_of_integer_codes_is_nominal():
    """A frame's column of pandas' category dtype is nominal whatever its categories are, as treegen.train
    reads it: codes 10..40 as categories "10".."40" (read as numbers, no one threshold split them)."""
    import treegen
    codes = np.random.default_rng(1).choice([10, 20, 30, 40], 400)
    X = pd.DataFrame({"region": pd.Categorical(codes)})
    y = np.where(np.isin(codes, [10, 40]), "A", "B")
    tree = DecisionTreeClassifier(max_depth=1).fit(X, y)
    assert tree.model_.features == treegen.train(X.assign(y=y), target="y", algorithm="cart", max_depth=1).features
    assert tree.model_.features[0].kind == "nominal" and set(tree.model_.features[0].categories) == {"10", "20", "30", "40"}
    assert tree.score(X, y) == 1.0


def test_nominal_makes_integer_codes_categories():
    """By name, index or mask, as train's nominal: the categories are the codes' own text ("2", which a CSV
    field names, not "2.0"), and the tree is train's on the same frame."""
    import treegen
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, 200)
    X = pd.DataFrame({"code": codes, "noise": rng.normal(size=200)})
    y = np.where(np.isin(codes, [0, 3]), "a", "b")  # no one threshold on the codes splits it
    assert DecisionTreeClassifier(max_depth=1).fit(X, y).score(X, y) < 1.0
    for nominal in (["code"], "code", [0], [True, False]):
        tree = DecisionTreeClassifier(max_depth=1, nominal=nominal).fit(X, y)
        assert tree.model_.features[0].kind == "nominal" and set(tree.model_.features[0].categories) == {"0", "1", "2", "3"}
        assert tree.score(X, y) == 1.0
    trained = treegen.train(X.assign(y=y), target="y", algorithm="cart", nominal=["code"], max_depth=1)
    assert tree.model_.features == trained.features and tree.model_.trees == trained.trees
    on_array = DecisionTreeClassifier(max_depth=1, nominal=[0]).fit(X.to_numpy(), y)
    assert on_array.model_.features[0].kind == "nominal" and on_array.score(X.to_numpy(), y) == 1.0
    with pytest.raises(ValueError, match="nominal names 'cod', which is no feature of X; did you mean 'code'"):
        DecisionTreeClassifier(nominal=["cod"]).fit(X, y)
    with pytest.raises(ValueError, match="nominal names column 2, but X has 2 features"):
        DecisionTreeClassifier(nominal=[2]).fit(X, y)


def test_feature_names_conflicting_with_a_frame_is_refused_and_y_name_names_the_target():
    import treegen
    X, y = datasets.load_iris(return_X_y=True, as_frame=True)
    with pytest.raises(ValueError, match="a DataFrame's columns name its features"):
        DecisionTreeClassifier(feature_names=list("abcd")).fit(X, y)
    same = DecisionTreeClassifier(feature_names=list(X.columns)).fit(X, y)
    assert [f.name for f in same.model_.features] == list(X.columns)
    assert same.model_.target.name == "target" == y.name
    species = DecisionTreeClassifier().fit(X, y.rename("species"))
    assert species.model_.target.name == "species"
    assert "target species: classes" in treegen.export(species, "rules")
    assert DecisionTreeRegressor().fit(X, X.pop("sepal length (cm)")).model_.target.name == "sepal length (cm)"
    assert DecisionTreeClassifier().fit(X.to_numpy(), y.to_numpy()).model_.target.name == "target"


def test_apply_depth_and_leaves_as_scikit_learns():
    """With random_state cart grows scikit-learn's tree, node ids too: apply, get_depth and get_n_leaves agree."""
    import treegen
    X, y = datasets.load_breast_cancer(return_X_y=True)
    ours = DecisionTreeClassifier(random_state=0, max_depth=5).fit(X, y)
    sk = SkClassifier(random_state=0, max_depth=5).fit(X, y)
    assert np.array_equal(ours.apply(X), sk.apply(X))
    assert (ours.get_depth(), ours.get_n_leaves()) == (sk.get_depth(), sk.get_n_leaves())
    assert ours.export("python") == treegen.export(ours.model_, "python")


def test_apply_of_c45_is_where_the_row_ends():
    """A leaf id, or for a row that C4.5 sends down every branch (a missing value), the split it spread at."""
    from treegen.model import leaf_ids
    X = pd.read_csv(os.path.join(ROOT, "examples", "play_tennis.csv"))
    X, y = X.drop(columns="play"), X["play"]
    tree = DecisionTreeClassifier(algorithm="c45").fit(X, y)
    ends = tree.apply(X)
    assert all(tree.model_.trees[0].nodes[i].is_leaf for i in ends)
    assert [str(i) for i in ends] == [leaf_ids(tree.model_, row) for row in X.to_dict("records")]
    root_feature = tree.model_.features[tree.model_.trees[0].nodes[0].split.feature].name
    assert tree.apply(X.head(1).assign(**{root_feature: None}))[0] == 0
