"""Learners report the training weight they settle in leaves; a bar appears only for slow fits, and
long commands show progress on a terminal, never elsewhere."""
import os
import pty
import subprocess
import sys
import time

import pytest

from treegen.data import load_dataset
from treegen.learn import fit
from treegen.progress import bar_after, listening, settled


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


@pytest.mark.parametrize("algorithm,path,params", [("id3", "examples/play_tennis.csv", {}),
                                                   ("c45", "tests/fixtures/j48/iris.arff", {}),
                                                   ("cart", "tests/fixtures/j48/iris.arff", {}),
                                                   ("cart", "tests/fixtures/j48/iris.arff", {"random_state": 0})])
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
