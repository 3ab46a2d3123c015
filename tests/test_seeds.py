"""The numbers of the articles treegen started from (../shared/seeds) as tests."""
import numpy as np
import pytest

from treegen.data import load_dataset
from treegen.evaluation import cross_validate
from treegen.learn import fit
from treegen.learn.criteria import entropy, gain_ratio, info_gain, split_info
from treegen.show import show

EXAMPLES = "examples/"


def contingency(dataset, feature):
    k, width = len(dataset.features[feature].categories), len(dataset.target.classes)
    table = np.zeros((k, width))
    np.add.at(table, (dataset.columns[feature], dataset.y), 1.0)
    return table


def gains(path, target):
    dataset = load_dataset(EXAMPLES + path, target=target, regression=False)
    parent = np.bincount(dataset.y).astype(float)
    out = {}
    for i, f in enumerate(dataset.features):
        table = contingency(dataset, i)
        out[f.name] = (info_gain(parent, table), gain_ratio(parent, table), split_info(table.sum(axis=1)))
    return parent, out


@pytest.mark.parametrize("path,target,names", [
    ("play_tennis.csv", "play", ["outlook", "humidity", "wind", "temperature"]),
    ("play_tennis_zh.csv", "打球", ["天气", "湿度", "风力", "温度"]),
    ("play_tennis.arff", "play", ["outlook", "humidity", "wind", "temperature"]),
])
def test_play_tennis_gains_and_gain_ratios(path, target, names):
    parent, out = gains(path, target)
    assert entropy(parent) == pytest.approx(0.940, abs=5e-4)
    for name, gain, ratio in zip(names, [0.247, 0.152, 0.048, 0.029], [0.156, 0.152, 0.049, 0.019]):
        assert out[name][0] == pytest.approx(gain, abs=5e-4)
        assert out[name][1] == pytest.approx(ratio, abs=5e-4)


def test_fish_gains_and_split_information():
    parent, out = gains("fish.csv", "属于鱼类")
    assert entropy(parent) == pytest.approx(0.971, abs=5e-4)
    surface, flippers = out["不浮出水面是否可以生存"], out["是否有脚蹼"]
    assert surface[0] == pytest.approx(0.420, abs=5e-4) and flippers[0] == pytest.approx(0.171, abs=5e-4)
    assert surface[2] == pytest.approx(0.971, abs=5e-4) and flippers[2] == pytest.approx(0.722, abs=5e-4)


@pytest.mark.parametrize("path,target", [("play_tennis.csv", "play"), ("play_tennis_zh.csv", "打球")])
def test_id3_tree_and_leave_one_out(path, target):
    dataset = load_dataset(EXAMPLES + path, target=target, regression=False)
    model = fit(dataset, "id3")
    nodes = model.trees[0].nodes
    names = [f.name for f in dataset.features]
    root = nodes[0].split
    assert names[root.feature] in ("outlook", "天气")
    children = dict(zip(root.values, nodes[0].children))
    sunny, overcast, rain = (children[v] for v in (("sunny", "overcast", "rain") if target == "play" else ("晴", "阴", "雨")))
    assert names[nodes[sunny].split.feature] in ("humidity", "湿度")
    assert nodes[overcast].is_leaf and model.target.classes[int(np.argmax(nodes[overcast].value))] in ("yes", "是")
    assert names[nodes[rain].split.feature] in ("wind", "风力")
    report = cross_validate(dataset, "id3", loo=True)
    assert sum(t == p for t, p in zip(report.truth, report.predicted)) == 11
    assert f"{report.accuracy:.2%}" == "78.57%"


def test_seed_test_sample_predicts_yes():
    model = fit(load_dataset(EXAMPLES + "play_tennis_zh.csv", regression=False), "id3")
    assert model.predict({"天气": "晴", "温度": "适中", "湿度": "正常", "风力": "弱"}) == "是"


def test_buys_computer_has_age_at_the_root():
    dataset = load_dataset(EXAMPLES + "buys_computer.csv", regression=False)
    model = fit(dataset, "id3")
    assert dataset.features[model.trees[0].nodes[0].split.feature].name == "age"
    assert "age = <30" in show(model)


@pytest.mark.parametrize("path,algorithm", [("tests/fixtures/j48/labor.arff", "c45"),
                                            ("tests/fixtures/j48/soybean.arff", "c45"),
                                            ("tests/fixtures/j48/labor.arff", "cart"),
                                            ("examples/play_tennis.csv", "id3")])
def test_answers_on_a_data_set_are_the_models_row_by_row(path, algorithm):
    """train's training accuracy and evaluate's folds predict the data set's rows from its encoded columns, all
    at once: the answers model.predict gives row by row, missing values' fractional routes (C4.5) included."""
    from treegen.evaluation import answers_on
    dataset = load_dataset(path)
    model = fit(dataset, algorithm)
    assert answers_on(model, dataset) == [model.predict(row) for row in dataset.rows()]
    part = dataset.subset(np.arange(0, len(dataset), 3))
    assert answers_on(model, part) == [model.predict(row) for row in part.rows()]
