"""Train a scikit-learn forest and save it as treegen imports it: a .skops file (safe to load: data,
never code), plus the data as CSV to verify against.

    python3 examples/sklearn/make_forest.py            # writes forest.skops and iris.csv here
    treegen import examples/sklearn/forest.skops -o forest.json
    treegen verify forest.json examples/sklearn/iris.csv --to python,sql --dialect duckdb

Needs scikit-learn, skops and pandas: pip install scikit-learn skops pandas.
"""
import os
import sys

try:
    import pandas  # noqa: F401  (load_iris(as_frame=True) needs it)
    import skops.io
    from sklearn.datasets import load_iris
    from sklearn.ensemble import RandomForestClassifier
except ImportError as err:
    print(f"make_forest.py: needs {err.name}: pip install scikit-learn skops pandas", file=sys.stderr)
    sys.exit(2)

HERE = os.path.dirname(os.path.abspath(__file__))

X, y = load_iris(return_X_y=True, as_frame=True)  # a DataFrame: the model keeps its column names
forest = RandomForestClassifier(n_estimators=20, max_depth=4, random_state=0).fit(X, y)
skops.io.dump(forest, os.path.join(HERE, "forest.skops"))
X.assign(species=y).to_csv(os.path.join(HERE, "iris.csv"), index=False)
print(f"wrote {os.path.join(HERE, 'forest.skops')} and iris.csv ({len(X)} rows)")
