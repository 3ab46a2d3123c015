"""The README's examples run as written: its Python, and its commands as a new user types them."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_python_api_example_runs(tmp_path, monkeypatch):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    assert blocks
    monkeypatch.chdir(tmp_path)
    os.symlink(ROOT / "examples", tmp_path / "examples")
    scope: dict = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), scope)
    assert "public final class Tennis" in scope["java_source"]
    assert scope["model"].predict({"outlook": "overcast"}) == "yes"
    assert scope["scores"].method == "the model on <DataFrame>" and "accuracy" in str(scope["scores"])


@pytest.mark.slow
def test_the_commands_of_using_it_run(tmp_path):
    """Each command of the "Using it" block, in order, in a folder with the examples (a copy: one
    command writes into it), after the pip installs (done: the tests run in the installed package)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Using it\n.*?```sh\n(.*?)```", text, re.DOTALL).group(1)
    commands = [line for line in block.splitlines() if line.strip() and not line.startswith("pip ")]
    assert len(commands) > 15
    shutil.copytree(ROOT / "examples", tmp_path / "examples", ignore=shutil.ignore_patterns("forest.skops", "iris.csv"))
    bin_dir = os.path.dirname(sys.executable)
    env = {**os.environ, "PATH": bin_dir + os.pathsep + os.environ["PATH"]}
    for command in commands:
        done = subprocess.run(["bash", "-c", command.replace("python3 ", f"{sys.executable} ", 1)], cwd=tmp_path,
                              env=env, capture_output=True, text=True)
        assert done.returncode == 0, (command, done.stderr[-2000:])
