"""docs/tutorial.md, run as a reader runs it: every ``$`` command of its console blocks in one shell
folder, each block's output compared with what the page shows; ``python file=NAME`` blocks are
written to NAME first."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BLOCK = re.compile(r"^```(console|python file=(?P<file>\S+))\n(?P<body>.*?)^```$", re.M | re.S)


def steps(markdown: str):
    """(kind, file or None, text) per block, in order; a console block's text is its lines."""
    for m in BLOCK.finditer(markdown):
        yield ("file" if m.group("file") else "console"), m.group("file"), m.group("body")


def commands(console: str) -> list[tuple[str, str]]:
    """(command, expected output) pairs of a console block."""
    out, command, expected = [], None, []
    for line in console.splitlines(keepends=True):
        if line.startswith("$ "):
            if command is not None:
                out.append((command, "".join(expected)))
            command, expected = line[2:].rstrip("\n"), []
        else:
            expected.append(line)
    if command is not None:
        out.append((command, "".join(expected)))
    return out


@pytest.mark.slow
def test_the_tutorial_does_what_it_shows(tmp_path):
    os.symlink(os.path.join(ROOT, "examples"), tmp_path / "examples")
    shims = tmp_path / "bin"  # `python3` and `treegen` are the ones this test runs with
    shims.mkdir()
    for name, run in (("python3", ""), ("treegen", " -m treegen")):  # a script, not a link: a venv's
        (shims / name).write_text(f'#!/bin/sh\nexec "{sys.executable}"{run} "$@"\n')  # python finds its venv
        (shims / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{shims}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": ROOT}
    with open(os.path.join(ROOT, "docs", "tutorial.md"), encoding="utf-8") as page:
        markdown = page.read()
    ran = 0
    for kind, name, text in steps(markdown):
        if kind == "file":
            (tmp_path / name).write_text(text, encoding="utf-8")
            continue
        for command, expected in commands(text):
            done = subprocess.run(["sh", "-c", command], cwd=tmp_path, env=env, capture_output=True, text=True)
            assert done.returncode == 0, (command, done.stderr)
            assert done.stdout + done.stderr == expected, command
            ran += 1
    assert ran >= 15
