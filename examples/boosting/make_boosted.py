"""Train an XGBoost and a LightGBM model on iris with some values missing, and save them as the
libraries save them: the files treegen imports (data, never code), plus the data as CSV.

    python3 examples/boosting/make_boosted.py          # writes xgboost.json, lightgbm.txt, iris_missing.csv here
    treegen import examples/boosting/xgboost.json -o xgb.json
    treegen verify xgb.json examples/boosting/iris_missing.csv --to python,java --against examples/boosting/xgboost.json

Needs xgboost, lightgbm, scikit-learn and pandas: pip install '.[xgboost,lightgbm,sklearn]' pandas in the
checkout (the [xgboost] extra is xgboost-cpu where it has wheels, XGBoost without CUDA's libraries).
"""
import os
import sys

try:
    import lightgbm
    import numpy as np
    import pandas  # noqa: F401  (load_iris(as_frame=True) needs it)
    import xgboost
    from sklearn.datasets import load_iris
except ImportError as err:
    print(f"make_boosted.py: needs {err.name}: pip install '.[xgboost,lightgbm,sklearn]' pandas (in the checkout)",
          file=sys.stderr)
    sys.exit(2)

HERE = os.path.dirname(os.path.abspath(__file__))

X, y = load_iris(return_X_y=True, as_frame=True)
X.columns = [name.replace(" (cm)", "").replace(" ", "_") for name in X.columns]
X = X.mask(np.random.default_rng(0).random(X.shape) < 0.1)  # one value in ten missing (NaN)

# the three lines that matter: fit, then save_model in the library's own format
xgboost.XGBClassifier(n_estimators=20, max_depth=3).fit(X, y).save_model(os.path.join(HERE, "xgboost.json"))
lightgbm.LGBMClassifier(n_estimators=20, num_leaves=8, min_child_samples=5, verbose=-1).fit(X, y) \
    .booster_.save_model(os.path.join(HERE, "lightgbm.txt"))
X.assign(species=y).to_csv(os.path.join(HERE, "iris_missing.csv"), index=False)
print(f"wrote xgboost.json, lightgbm.txt and iris_missing.csv ({len(X)} rows) in {HERE}")
