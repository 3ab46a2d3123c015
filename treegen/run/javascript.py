"""Run a generated JavaScript module as a program with Node, for real."""
from __future__ import annotations

import os
import subprocess
import tempfile


def file_name(source: str) -> str:
    """The name a module is run under: ``model.cjs`` for the CommonJS build (which starts with
    ``"use strict";``), else ``model.mjs``, so that Node reads each as what it is."""
    return "model.cjs" if source.startswith('"use strict";') else "model.mjs"


def command(source: str, directory: str, node: str = "node") -> list[str]:
    """Write the module into ``directory``; the command that runs it as a program."""
    path = os.path.join(directory, file_name(source))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(source)
    return [node, path]


def run(source: str, csv_text: str, args=(), node: str = "node", timeout: float = 600, **_context) -> str:
    """Run the module with Node on ``csv_text``; its standard output. ``_context`` (the model, engine
    settings) is what every runner receives; a program needs none of it.

    Raises RuntimeError with the standard error when the program fails."""
    with tempfile.TemporaryDirectory(prefix="treegen-javascript-") as directory:
        done = subprocess.run(command(source, directory, node) + list(args), input=csv_text.encode("utf-8"),
                              capture_output=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"node exited with {done.returncode}: {done.stderr.decode('utf-8', 'replace')}")
    return done.stdout.decode("utf-8")
