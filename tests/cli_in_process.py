"""``treegen ARGS`` run in the test's own process, answered as ``subprocess.run`` answers.

A process of its own costs ~0.2 s of CPU importing treegen again (300 of them took a tenth of the suite's
CPU): the tests of what only a process shows -- the entry point, pipes, the interpreter's encoding, an
environment of its own -- start one; the others run the same click command here."""
from __future__ import annotations

import subprocess
import warnings

from click.testing import CliRunner

from treegen.cli import main

# What Python's default filters keep from a user's terminal (a process of its own prints every other warning)
UNSHOWN = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)


def treegen_cli(*args, input: str | None = None, check: bool = False) -> subprocess.CompletedProcess:
    """The exit status, stdout and stderr (text) of ``treegen ARGS`` (``check``: raise on a non-zero status).
    A Python warning the command lets through ends its stderr, as a process prints it; an exception it lets
    through is raised, as its traceback fails a test of a process."""
    words = [str(arg) for arg in args]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        for category in UNSHOWN:
            warnings.filterwarnings("ignore", category=category)
        result = CliRunner().invoke(main, words, input=input, prog_name="treegen", catch_exceptions=False)
    stderr = result.stderr + "".join(warnings.formatwarning(w.message, w.category, w.filename, w.lineno, w.line)
                                     for w in caught)
    done = subprocess.CompletedProcess(["treegen", *words], result.exit_code, result.stdout, stderr)
    if check:
        done.check_returncode()
    return done
