"""Rule text: readable, parsed back by the Lark grammar into a model that predicts identically."""
import pytest
from hypothesis import given, settings, strategies as st

from treegen.data import load_dataset
from treegen.targets import emit
from treegen.errors import TreegenError
from treegen.learn import fit
from treegen.parse.rule_text import parse
from treegen.probes import probe_rows
from treegen.testing import HOSTILE_NAMES, chain_model, random_model, random_rows, wide_model

names = st.text(min_size=1, max_size=12)


def assert_same_predictions(model, again, rows):
    for row in rows:
        assert again.scores(row) == model.scores(row)
        assert again.predict(row) == model.predict(row)


def test_tennis_rules_read_like_rules():
    model = fit(load_dataset("examples/play_tennis.csv"), "id3")
    text = emit(model, "rules")
    assert 'rule 3: if outlook = "sunny" and humidity = "high" then "no"  # n 3.0: no 3.0, yes 0.0' in text
    assert "default: \"yes\"" in text
    assert_same_predictions(model, parse(text), probe_rows(model))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), regression=st.booleans(), trees=st.integers(1, 3),
       combine=st.sampled_from(["average", "sum"]))
def test_round_trip_of_random_models(seed, regression, trees, combine):
    model = random_model(seed, regression=regression, n_trees=trees)
    if trees > 1 and combine == "sum":
        from treegen.model import Combine
        model.combine = Combine("sum", init=tuple(0.5 for _ in range(model.target.width)), scale=0.1,
                                link="identity")
    text = emit(model, "rules")
    assert emit(model, "rules") == text  # deterministic
    assert_same_predictions(model, parse(text), random_rows(model, 40, seed) + probe_rows(model, 200))


@settings(max_examples=60, deadline=None)
@given(feature_names=st.lists(names, min_size=5, max_size=5, unique=True),
       labels=st.lists(st.text(max_size=8), min_size=3, max_size=3, unique=True),
       seed=st.integers(0, 1000))
def test_any_names_and_labels_round_trip(feature_names, labels, seed):
    model = random_model(seed, names=feature_names, classes=labels)
    again = parse(emit(model, "rules"))
    assert [f.name for f in again.features] == feature_names and list(again.target.classes) == labels
    assert_same_predictions(model, again, random_rows(model, 30, seed))


def test_hostile_names_round_trip():
    model = random_model(7, names=HOSTILE_NAMES[:5], classes=tuple(HOSTILE_NAMES[5:8]))
    text = emit(model, "rules")
    assert all("\n" not in line for line in text.split("\n"))
    assert_same_predictions(model, parse(text), random_rows(model, 50, 7))


def test_float32_and_tolerance_semantics_survive():
    from treegen.model import NumericSemantics
    for semantics in (NumericSemantics(cast="float32"), NumericSemantics(tolerance=1e-6)):
        model = random_model(11, numeric=semantics)
        again = parse(emit(model, "rules"))
        assert again.numeric == semantics
        assert_same_predictions(model, again, probe_rows(model))


def test_big_trees_round_trip():
    deep = chain_model(10_000)
    assert parse(emit(deep, "rules")).predict({"x": 9_998.5}) == deep.predict({"x": 9_998.5})
    wide = wide_model(5_000)
    assert_same_predictions(wide, parse(emit(wide, "rules")), random_rows(wide, 200, 1))


def tennis_text():
    return emit(fit(load_dataset("examples/play_tennis.csv"), "id3"), "rules")


@pytest.mark.parametrize("edit,message,line", [
    (lambda t: t.replace("features", "featurez", 1), "unexpected 'featurez'; expected one of: 'features'", 5),
    (lambda t: t.replace('humidity = "high" then "no"', 'humidity = "high" then "yes"'),
     "rule 3 does not match the nodes section", 18),
    (lambda t: t.replace("node 2: leaf", "node 9: leaf"), "node ids must count", 29),
    (lambda t: t.replace("missing stop; value [0.6", "missing to 7; value [0.6"), "not one of its children", 27),
    (lambda t: t.replace('outlook: nominal {"sunny"', 'outlook: nominal {"sunny'), "unexpected 'overcast'", 6),
    (lambda t: t.replace("format 1", "format 2"), "unsupported rules format 2", 1),
])
def test_malformed_rule_text_points_at_the_line(edit, message, line):
    with pytest.raises(TreegenError) as err:
        parse(edit(tennis_text()), "tennis.rules")
    assert message in err.value.message
    assert (err.value.file, err.value.line) == ("tennis.rules", line)


def test_the_last_line_needs_no_newline():
    text = tennis_text()
    model = parse(text.rstrip("\n"), "tennis.rules")
    assert model.trees[0].nodes == parse(text).trees[0].nodes


@pytest.mark.parametrize("edit,message,line", [
    (lambda t: t.replace("numbers: float64", "numbers: float64 scale"),
     "unexpected 'scale'; expected one of: 'tolerance', end of line", 11),
    (lambda t: t.replace('outlook: nominal {"sunny", ', 'outlook: nominal {"sunny"\n'),
     "unexpected end of line; expected one of: ',', '}'", 6),
    (lambda t: t[:t.index("features")], "unexpected end of file; expected one of: 'features'", 4),
])
def test_messages_name_no_grammar_token(edit, message, line):
    with pytest.raises(TreegenError) as err:
        parse(edit(tennis_text()), "tennis.rules")
    assert (err.value.message, err.value.line) == (message, line)
    assert "_NL" not in err.value.message and "$END" not in err.value.message


def test_a_nan_node_value_is_refused_at_its_line():
    text = tennis_text()
    line = next(i for i, l in enumerate(text.splitlines(), 1) if "node 2: leaf; value [" in l)
    bad = text.replace("node 2: leaf; value [1.0, 0.0]", "node 2: leaf; value [nan, 0.0]")
    assert bad != text
    with pytest.raises(TreegenError) as err:
        parse(bad, "tennis.rules")
    assert err.value.line == line and "trees[0].nodes[2].value" in err.value.message, str(err.value)


@pytest.mark.parametrize("target", ["rules", "dot"])
def test_options_a_target_does_not_take_are_named(target):
    model = fit(load_dataset("examples/play_tennis.csv"), "id3")
    with pytest.raises(TreegenError, match=f"the {target} target takes no option leaf, proba"):
        emit(model, target, proba=True, leaf=True)
