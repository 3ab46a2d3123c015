"""Learners report the training weight they settle in leaves; a bar appears only for slow fits."""
import time

import pytest

from treegen.data import load_dataset
from treegen.learn import fit
from treegen.learn.progress import bar_after, listening, settled


class RecordingBar:
    instances = []

    def __init__(self, length):
        self.length, self.done, self.closed = length, 0, False
        RecordingBar.instances.append(self)

    def __enter__(self):
        return self

    def update(self, n):
        self.done += n

    def __exit__(self, *exc):
        self.closed = True


@pytest.mark.parametrize("algorithm,path", [("id3", "examples/play_tennis.csv"),
                                            ("c45", "tests/fixtures/j48/iris.arff"),
                                            ("cart", "tests/fixtures/j48/iris.arff")])
def test_learners_settle_all_training_weight(algorithm, path):
    dataset = load_dataset(path, regression=False)
    seen = []
    with listening(seen.append):
        fit(dataset, algorithm)
    assert sum(seen) == pytest.approx(dataset.weights.sum())


def test_bar_only_after_the_delay():
    RecordingBar.instances.clear()
    with bar_after(60.0, 10, RecordingBar):
        settled(10)
    assert RecordingBar.instances == []
    with bar_after(0.01, 10, RecordingBar):
        time.sleep(0.02)
        for _ in range(10):
            settled(1)
    [bar] = RecordingBar.instances
    assert bar.length == 10 and bar.done == 10 and bar.closed
