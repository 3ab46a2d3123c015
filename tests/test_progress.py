"""Learners report the training weight they settle in leaves; a bar appears only for slow fits, and
long commands show progress on a terminal, never elsewhere."""
import os
import pty
import subprocess
import sys
import time

import numpy as np
import pytest

from treegen.data import load_dataset
from treegen.learn import fit
from treegen.cli import started_bar
from treegen.learn.cart_problem import Params
from treegen.learn.cart_prune import HELD_OUT_ROW_COST, PRUNING_STEP_COST, held_out_scores
from treegen.progress import bar_after, listening, scaled, settled


class RecordingBar:
    instances = []

    def __init__(self, length, seconds_run):
        self.length, self.seconds_run, self.done, self.closed = length, seconds_run, 0, False
        RecordingBar.instances.append(self)

    def __enter__(self):
        return self

    def update(self, n):
        self.done += n

    def __exit__(self, *exc):
        self.closed = True


@pytest.mark.parametrize("algorithm,path,params", [("id3", "examples/play_tennis.csv", {}),
                                                   ("c45", "tests/fixtures/j48/iris.arff", {}),
                                                   ("cart", "tests/fixtures/j48/iris.arff", {}),
                                                   ("cart", "tests/fixtures/j48/iris.arff", {"random_state": 0}),
                                                   ("cart", "tests/fixtures/j48/iris.arff", {"ccp_alpha": "cv"}),
                                                   ("c45", "tests/fixtures/j48/iris.arff", {"reduced_error": True})])
def test_learners_settle_all_training_weight(algorithm, path, params):
    dataset = load_dataset(path, regression=False)
    seen = []
    with listening(seen.append):
        fit(dataset, algorithm, **params)
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
    assert bar.seconds_run >= 0.02  # the work before the bar counts in its ETA


def test_bar_ends_full_when_scaled_shares_round_below_the_total():
    RecordingBar.instances.clear()
    with bar_after(0.0, 10, RecordingBar):
        with scaled(0.1):
            for _ in range(100):
                settled(1)  # sums to 9.99999999999998
    [bar] = RecordingBar.instances
    assert bar.done == 10


def test_click_bar_clock_starts_with_the_work():
    bar = started_bar("fitting", 10, 5.0)
    assert time.time() - 6.0 < bar.start <= time.time() - 5.0


def test_cross_validated_alpha_counts_the_pruning_and_scoring_of_each_fold():
    """After a fold's tree is grown, its pruning sequence and the scoring of the held-out rows are counted
    too, as so many grown rows: on a tree of a leaf per row they take longer than the growth, and a bar
    that counted the grown rows alone sat at 100% through them."""
    dataset = load_dataset("tests/fixtures/j48/iris.arff", regression=False)
    params = Params.checked(dataset, "gini", None, 2, 1, 0.0, None, "float64", 0.0)
    test, train = dataset.subset(np.arange(0, 150, 3)), dataset.subset(np.flatnonzero(np.arange(150) % 3 != 0))
    candidates = np.array([0.0, 0.01, 0.1, 0.5])
    seen = []
    with listening(seen.append):
        held_out_scores(train, test, params, candidates)
    steps = len(candidates) * 100 / 150  # the fold's share of the full tree's steps
    after_growth = (steps * PRUNING_STEP_COST + 50 * HELD_OUT_ROW_COST) / len(dataset.features)
    assert sum(seen) == pytest.approx(100 + after_growth)


def on_a_terminal(*args, env=None):
    """Run treegen with its stderr on a pseudo-terminal, as a person sees it; (stdout, terminal text)."""
    leader, follower = pty.openpty()
    done = subprocess.run([sys.executable, "-m", "treegen", *args], stdout=subprocess.PIPE, stderr=follower,
                          env={**os.environ, **(env or {})}, text=True)
    os.close(follower)
    seen = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: everything was read
            break
        if not chunk:
            break
        seen += chunk
    os.close(leader)
    return done.stdout, seen.decode("utf-8", "replace")


def test_long_commands_show_progress_on_a_terminal_only(tmp_path):
    out, terminal = on_a_terminal("evaluate", "tests/fixtures/j48/iris.arff", "-a", "cart", "--folds", "3",
                                  env={"TREEGEN_PROGRESS_AFTER": "0"})
    assert "evaluating cart" in terminal and "100%" in terminal and "accuracy" in out
    model = tmp_path / "tennis.json"
    model.write_text(on_a_terminal("train", "examples/play_tennis.csv", "-a", "id3")[0], encoding="utf-8")
    out, terminal = on_a_terminal("verify", str(model), "--to", "python,rules")
    assert "verify: 0 of 2 targets checked" in terminal and out.count(" ok ") == 2
    quiet = subprocess.run([sys.executable, "-m", "treegen", "verify", str(model), "--to", "python,rules"],
                           capture_output=True, text=True)
    assert quiet.stderr == "" and quiet.stdout == out
    data = tmp_path / "big.csv"  # predict: the bytes of the file read (its output a pipe here, not the terminal)
    header, *rows = open("examples/play_tennis.csv", encoding="utf-8").readlines()
    data.write_text(header + "".join(rows) * 2000, encoding="utf-8")
    out, terminal = on_a_terminal("predict", str(model), str(data), env={"TREEGEN_PROGRESS_AFTER": "0"})
    assert "predicting" in terminal and "100%" in terminal and out.count("\n") == 1 + 14 * 2000
