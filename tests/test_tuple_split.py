"""A ``tuple`` split (nominal features combined, with binary parts) as the model, its vectorised walk, the JSON
format, its written-out form (treegen.expand) and the Python target read it: each row's key -- the categories
(None: missing), then the parts' child positions -- in the split's tuples goes to children[0]."""
from __future__ import annotations

import itertools
import json
import math

import pytest

from treegen import modelio
from treegen.errors import TreegenError
from treegen.expand import expanded
from treegen.model import (NOMINAL, NUMERIC, REGRESSION, Feature, MissingRoute, Model, Node, NumericSemantics, Op,
                           Split, Target, Tree, tuple_key)
from treegen.targets import emit
from treegen.run.python import run
from treegen.walk import predict_rows

CITIES, SHOPS = ("a", "b", ""), ("s", "t")


def tuple_model() -> Model:
    """One tuple split on (city, shop) with a float part (x <= 0.5, NaN right) and a category part (color in
    {red}, missing left, unknown right), a None key (a missing city) among its tuples."""
    features = (Feature("city", NOMINAL, CITIES), Feature("shop", NOMINAL, SHOPS), Feature("x", NUMERIC),
                Feature("color", NOMINAL, ("red", "blue")))
    parts = (Split(2, Op.LE, threshold=0.5, missing=MissingRoute.to_child(1)),
             Split(3, Op.IN, values=("red",), missing=MissingRoute.to_child(0), unknown=1))
    keys = frozenset({("a", "s", 0, 0), ("b", "t", 1, 0), ("", "s", 0, 1), (None, "s", 0, 1), ("a", None, 1, 1)})
    split = Split(0, Op.TUPLE, features=(0, 1), parts=parts, tuples=keys, missing=MissingRoute.to_child(1))
    nodes = [Node((0.0,), split=split, children=(1, 2)), Node((1.5,)), Node((-2.0,))]
    return Model(features, Target("y", REGRESSION), [Tree(nodes)], numeric=NumericSemantics(cast="float32"))


def every_row() -> list[dict]:
    values = {"city": [*CITIES, None, "zz"], "shop": [*SHOPS, None, "zz"], "x": [0.5, math.nextafter(0.5, 1), -1.0,
              None], "color": ["red", "blue", None, "green"]}
    return [dict(zip(values, combination)) for combination in itertools.product(*values.values())]


def test_the_key_decides_and_every_reader_agrees(tmp_path):
    model = tuple_model()
    rows = every_row()
    want = [1.5 if tuple_key(model, model.trees[0].nodes[0].split, row) in model.trees[0].nodes[0].split.tuples
            else -2.0 for row in rows]
    assert want.count(1.5) >= 5 and [model.predict(row) for row in rows] == want
    assert [value for value, _ in predict_rows(model, rows)] == want
    text = modelio.dumps(model)
    assert modelio.dumps(modelio.loads(text)) == text
    assert [value for value, _ in predict_rows(expanded(model), rows)] == want  # written out, exact
    csv_rows = ["city,shop,x,color"] + [",".join("" if v is None else str(v) for v in row.values()) for row in rows]
    printed = run(emit(model, "python"), "\n".join(csv_rows) + "\n", [], model=model).split()
    csv_want = [model.predict({k: (None if v == "" else v) for k, v in row.items()}) for row in rows]  # "": missing
    assert [float(p) for p in printed] == csv_want


@pytest.mark.parametrize("change, message", [
    (lambda s: s.update(tuples=[["a", "s", 0]]), r"split\.tuples: each tuple"),
    (lambda s: s.update(tuples=[["q", "s", 0, 0]]), r"split\.tuples: each tuple"),
    (lambda s: s.update(features=[1, 0]), r"split\.features: a 'tuple' split names"),
    (lambda s: s.update(features=[0, 2]), r"split\.features: a 'tuple' split combines nominal"),
])
def test_a_bad_tuple_split_is_one_line_naming_its_field(change, message):
    doc = json.loads(modelio.dumps(tuple_model()))
    change(doc["trees"][0]["nodes"][0]["split"])
    with pytest.raises(TreegenError, match=message) as info:
        modelio.loads(json.dumps(doc))
    assert "\n" not in str(info.value)


def test_the_targets_that_do_not_test_tuples_yet_compute_the_written_out_model_exactly():
    """Java, JavaScript, C, SQL and the rule text are given the split written out as 'in' and '<=' splits
    (treegen.expand): on the probes (each category, missing, unknown, the threshold's neighbours) they predict
    what the tuple split does."""
    from treegen.verifier import verify
    results = verify(tuple_model(), None, ["java", "javascript", "c", "sql", "rules"], ["sqlite", "duckdb"])
    assert len(results) == 6 and all(r.ok for r in results), [r.line() for r in results]
