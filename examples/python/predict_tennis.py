"""Predict with a generated Python module: it is plain standard-library code, imported like any other.

Generate it once (treegen is needed only for this step):

    treegen train examples/play_tennis.csv --target play --algorithm id3 -o tennis.json
    treegen export tennis.json --to python --leaf -o examples/python/tennis.py

then run ``python3 examples/python/predict_tennis.py``. Without ``tennis.py`` this script generates it
through treegen's API first. The module is a program too: ``python3 examples/python/tennis.py --proba
< examples/play_tennis.csv`` prints the class probabilities of each row (``--leaf``: the leaf ids).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

EXPORT = "treegen export tennis.json --to python --leaf -o examples/python/tennis.py"


def fail(message):
    print(f"predict_tennis.py: {message}", file=sys.stderr)
    sys.exit(2)


if not os.path.exists(os.path.join(HERE, "tennis.py")):
    try:
        import treegen
    except ImportError:
        fail(f"no tennis.py here, and treegen, which would generate it, is not installed: pip install . "
             f"(in the checkout), or generate it with {EXPORT}")
    model = treegen.train(os.path.join(HERE, "..", "play_tennis.csv"), target="play", algorithm="id3")
    with open(os.path.join(HERE, "tennis.py"), "w", encoding="utf-8") as handle:
        handle.write(treegen.export(model, "python", leaf=True))

import tennis  # noqa: E402  (the generated module)

if not hasattr(tennis, "predict_leaf"):
    fail(f"{tennis.__file__} was exported without --leaf; export it again: {EXPORT}")

days = [
    {"outlook": "sunny", "temperature": "cool", "humidity": "high", "wind": "strong"},
    {"outlook": "overcast", "humidity": "normal"},  # a missing key is a missing value
    {"outlook": "rain", "temperature": "mild", "humidity": "normal", "wind": "weak"},
    {"outlook": "foggy", "wind": "weak"},  # a category the tree never saw is treated as missing
]
print("features:", ", ".join(tennis.FEATURES))
for day in days:
    probabilities = ", ".join(f"{label}={p:.2f}" for label, p in zip(tennis.CLASSES, tennis.predict_proba(day)))
    leaf = "|".join(map(str, tennis.predict_leaf(day)[0]))  # the one tree's leaf ids, as `--leaf` prints them
    print(f"{tennis.predict(day):>3}  ({probabilities}, leaf {leaf})  {day}")
