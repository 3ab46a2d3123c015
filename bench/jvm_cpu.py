"""A pytest plugin: the CPU each test costs, its Python process's and that of the JVMs it started
(Spark's), which ``/usr/bin/time`` and ``getrusage`` leave out (pytest does not wait for them).

    PYTHONPATH=bench:. .venv/bin/python -m pytest -p jvm_cpu -n 0 -k spark tests/...

prints a table of JVM, Python and wall seconds a test, the biggest first; with ``--cpu-queries``
also the JVM seconds of each Spark query's three steps (rows into a DataFrame, ``spark.sql``: parse
and analysis, ``collect``: optimisation, planning, Janino's compilation and the run). The JVM starts
within the first test that needs it: that test carries the start. Linux only (reads /proc)."""
from __future__ import annotations

import os
import resource
import time

import pytest

TICK = os.sysconf("SC_CLK_TCK")
_jvms: list[int] = []  # the java processes found last time: /proc is scanned again only when one ends


def _stat(pid: int) -> tuple[str, list[str]]:
    """A process's command name and the fields of /proc/PID/stat after it."""
    with open(f"/proc/{pid}/stat") as f:
        text = f.read()
    return text[text.index("(") + 1:text.rindex(")")], text[text.rindex(")") + 2:].split()


def _descendants(pid: int) -> list[int]:
    parents = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            parents[int(entry)] = int(_stat(int(entry))[1][1])
        except OSError:
            continue
    found, todo = [], [pid]
    while todo:
        pid = todo.pop()
        children = [p for p, parent in parents.items() if parent == pid]
        found += children
        todo += children
    return found


def jvm_seconds() -> float:
    """User and system CPU seconds of the java processes this process started, so far."""
    try:
        if _jvms:
            return _cpu(_jvms)
    except OSError:  # one has ended
        pass
    _jvms[:] = [p for p in _descendants(os.getpid()) if _stat(p)[0] == "java"]
    return _cpu(_jvms)


def _cpu(pids: list[int]) -> float:
    return sum((int(fields[11]) + int(fields[12])) / TICK for fields in (_stat(p)[1] for p in pids))


def python_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


_tests: list[tuple[str, float, float, float]] = []
_steps: dict[str, list[float]] = {}


def pytest_addoption(parser):
    parser.addoption("--cpu-queries", action="store_true", help="JVM CPU of each step of the Spark queries")


def pytest_configure(config):
    if config.getoption("--cpu-queries"):
        from pyspark.sql import SparkSession
        from pyspark.sql.classic.dataframe import DataFrame
        _measure(SparkSession, "createDataFrame", "rows into a DataFrame")
        _measure(SparkSession, "sql", "spark.sql: parse, analysis")
        _measure(DataFrame, "collect", "collect: optimise, plan, compile, run")


def _measure(owner, name: str, step: str) -> None:
    original = getattr(owner, name)

    def measured(*args, **kwargs):
        start = jvm_seconds()
        try:
            return original(*args, **kwargs)
        finally:
            count_and_seconds = _steps.setdefault(step, [0, 0.0])
            count_and_seconds[0] += 1
            count_and_seconds[1] += jvm_seconds() - start
    setattr(owner, name, measured)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    jvm, python, wall = jvm_seconds(), python_seconds(), time.monotonic()
    yield
    # the last test's teardown stops the JVM: its figure is then short of the stop
    _tests.append((item.nodeid, max(0.0, jvm_seconds() - jvm), python_seconds() - python, time.monotonic() - wall))


def pytest_terminal_summary(terminalreporter):
    write = terminalreporter.write_line
    write(f"{'JVM s':>8} {'Python s':>8} {'wall s':>8}  test (load: {os.getloadavg()[0]:.2f})")
    for name, jvm, python, wall in sorted(_tests, key=lambda t: -(t[1] + t[2])):
        write(f"{jvm:8.2f} {python:8.2f} {wall:8.2f}  {name}")
    write(f"{sum(t[1] for t in _tests):8.2f} {sum(t[2] for t in _tests):8.2f} {sum(t[3] for t in _tests):8.2f}  all")
    for step, (count, seconds) in _steps.items():
        write(f"{seconds:8.2f} JVM s in {count} calls: {step}")
