"""treegen.run.kept: the helper processes kept running between requests (a JVM with javac loaded, a
JVM or a Node process running generated programs)."""
import gc
import sys
import warnings

from treegen.run.kept import KeptProcesses

ECHO = "import sys\nfor line in sys.stdin:\n    print(line.strip(), flush=True)\n    if line.strip() == 'end':\n        break\n"


def ask(kept: KeptProcesses, word: str):
    """The process that answered ``word`` (it echoes it)."""
    with kept.process(sys.executable) as process:
        process.stdin.write(word.encode() + b"\n")
        process.stdin.flush()
        assert process.stdout.readline() == word.encode() + b"\n"
        return process


def test_a_process_started_again_or_closed_leaves_no_pipe_open():
    """A kept process that ended is started again, and its pipes are closed, as every process's are at close:
    an unclosed pipe is a file descriptor held until the collector runs, and a ResourceWarning then (the test
    run printed one at its end)."""
    kept = KeptProcesses("echo.py", ECHO, lambda python, path: [python, path])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        first = ask(kept, "end")
        first.wait()
        second = ask(kept, "again")
        assert second is not first and first.stdin.closed and first.stdout.closed
        kept.close()
        assert second.returncode == 0 and second.stdin.closed and second.stdout.closed
        del first, second, kept
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []
