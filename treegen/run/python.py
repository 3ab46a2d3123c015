"""Run a generated Python module as a program, in a subprocess, for real."""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile


def run(source: str, csv_text: str, args=(), python: str = sys.executable, timeout: float = 600,
        **_context) -> str:
    """Write the module to a temporary file, run it on ``csv_text``; its standard output. ``_context``
    (the model, engine settings) is what every runner receives; a program needs none of it.

    Raises RuntimeError with the standard error when the program fails."""
    with tempfile.TemporaryDirectory(prefix="treegen-python-") as directory:
        path = os.path.join(directory, "model.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(source)
        done = subprocess.run([python, path, *args], input=csv_text.encode("utf-8"),
                              capture_output=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"python exited with {done.returncode}: {done.stderr.decode('utf-8', 'replace')}")
    return done.stdout.decode("utf-8")
