"""Engines for the whole test run: throwaway PostgreSQL and MariaDB servers and a local SparkSession.

No skips: when an engine cannot start, the tests that need it fail with the reason."""
from __future__ import annotations

import gc
import glob
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import pytest
from hypothesis import settings

# One thread each for OpenBLAS (numpy) and OpenMP (LightGBM, XGBoost, scikit-learn): the tests run in
# one process per core, and each process or program they start would otherwise start a thread per
# core too -- OpenBLAS's cost ~0.1 s of CPU at every numpy import (a CLI run: 0.40 -> 0.30 s), and
# idle OpenMP threads spin. Set before numpy loads here; the processes the tests start inherit it.
for _threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

# The cycle collector's full passes walk every object a test process holds (the modules of numpy,
# scikit-learn, Spark's client, hypothesis; the big models of the moment): 70 of them cost the two
# workers 21 s of the suite's CPU. A full pass every 100 passes of the middle generation instead of
# every 10 (Python's default) cut that to 7 s, with the young generations' passes unchanged
# (GC time measured with gc.callbacks over the whole suite: 28.5 -> 14.3 s).
gc.set_threshold(gc.get_threshold()[0], gc.get_threshold()[1], 100)

# The property tests draw the same examples on every run (a failure in CI can be run again as it was),
# from a seed that is a hash of each test; `pytest --hypothesis-profile=explore` draws new ones.
settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore")
settings.load_profile("repeatable")


def _postgres_bindir() -> str:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return os.path.dirname(found[-1])
    pg_config = shutil.which("pg_config")
    if pg_config:
        return subprocess.run([pg_config, "--bindir"], capture_output=True, text=True).stdout.strip()
    raise RuntimeError("PostgreSQL server binaries not found: install postgresql (see .ci/engines.sh)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_postgres(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: run its tools as the postgres user then."""
    return ["runuser", "-u", "postgres", "--"] + command if os.geteuid() == 0 else command


@pytest.fixture(scope="session")
def postgres_dsn():
    """A connection string to a PostgreSQL server started for this test run (unix socket only)."""
    bindir = _postgres_bindir()
    root = tempfile.mkdtemp(prefix="treegen-pg-")
    data, sockets = os.path.join(root, "data"), os.path.join(root, "sockets")
    os.makedirs(sockets)
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
        shutil.chown(sockets, "postgres")
    port = _free_port()

    def tool(*args):
        done = subprocess.run(_as_postgres(list(args)), capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {done.stderr or done.stdout}")

    tool(os.path.join(bindir, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8",
         "--locale=C.UTF-8" if os.path.exists("/usr/lib/locale/C.utf8") else "--locale=C")
    options = f"-p {port} -k {sockets} -c listen_addresses='' -c fsync=off"
    tool(os.path.join(bindir, "pg_ctl"), "-D", data, "-o", options, "-l", os.path.join(root, "log"), "-w", "start")
    try:
        yield f"host={sockets} port={port} user=postgres dbname=postgres"
    finally:
        subprocess.run(_as_postgres([os.path.join(bindir, "pg_ctl"), "-D", data, "-m", "immediate", "stop"]),
                       capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


def _mariadb_tool(name: str) -> str:
    path = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")  # sbin: not on a user's PATH
    if path:
        return path
    raise RuntimeError(f"{name} not found: install mariadb-server-core and mariadb-client-core (see .ci/engines.sh)")


def _tail(path: str, lines: int = 15) -> str:
    try:
        with open(path, errors="replace") as log:
            return "".join(log.readlines()[-lines:])
    except OSError:
        return "(no server log)"


@pytest.fixture(scope="session")
def mysql_server():
    """Connection parameters (``key=value`` pairs, see treegen.run.sql) of a MariaDB server started for
    this test run: unix socket only, data in a temporary directory, removed at the end. As root the
    server runs as root (``--user=root``): the minimal packages create no ``mysql`` user."""
    root = tempfile.mkdtemp(prefix="treegen-mariadb-")
    data, sock, log, temporary = (os.path.join(root, name) for name in ("data", "sock", "log", "tmp"))
    os.mkdir(temporary)  # its temporary tables' files its own, not /tmp's (one went missing there under a run)
    common = ["--no-defaults", f"--datadir={data}", f"--tmpdir={temporary}"] + (
        ["--user=root"] if os.geteuid() == 0 else [])
    done = subprocess.run([_mariadb_tool("mariadb-install-db")] + common +
                          ["--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"],
                          capture_output=True, text=True)
    if done.returncode != 0:
        shutil.rmtree(root, ignore_errors=True)
        raise RuntimeError(f"mariadb-install-db failed: {done.stderr or done.stdout}")
    # No networking and no durability: a throwaway server. Limits (thread_stack, max_allowed_packet,
    # sql_mode) stay at their defaults: the SQL must run on a user's server as installed.
    with open(log, "w") as errors:  # without --log-error the server logs to stderr, early failures too
        server = subprocess.Popen([_mariadb_tool("mariadbd")] + common +
                                  [f"--socket={sock}", "--skip-networking", "--skip-name-resolve",
                                   f"--pid-file={os.path.join(root, 'pid')}", "--innodb-flush-log-at-trx-commit=0"],
                                  stdout=errors, stderr=subprocess.STDOUT)
    dsn = f"unix_socket={sock} user=root database=treegen"
    try:
        _wait_for_mariadb(server, sock, log)
        yield dsn
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        shutil.rmtree(root, ignore_errors=True)


def _wait_for_mariadb(server: subprocess.Popen, sock: str, log: str, timeout: float = 60.0) -> None:
    """Until the server accepts a connection; then create the database the tests use."""
    import pymysql
    deadline = time.monotonic() + timeout
    while True:
        if server.poll() is not None:
            raise RuntimeError(f"mariadbd exited with {server.returncode}:\n{_tail(log)}")
        try:
            # pymysql leaves its socket open where connecting to the socket file fails (a ResourceWarning later,
            # in whichever test the collector runs): a socket of our own tries that first
            with socket.socket(socket.AF_UNIX) as probe:
                probe.connect(sock)
            connection = pymysql.connect(unix_socket=sock, user="root")
            break
        except (OSError, pymysql.err.OperationalError):
            if time.monotonic() > deadline:
                raise RuntimeError(f"mariadbd did not accept connections in {timeout:.0f} s:\n{_tail(log)}") from None
            time.sleep(0.1)
    with connection:
        connection.cursor().execute("CREATE DATABASE treegen CHARACTER SET utf8mb4")


@pytest.fixture(scope="session")
def spark():
    """A local SparkSession (one core, one shuffle partition, no UI) for the whole run. Its JVM
    compiles with C1 alone and collects with the serial collector: the run's queries are many and
    short, and C2's compiler threads and the parallel collector cost the two cores a third more
    CPU for the same wall time (tests/test_sql_spark_walk.py: 114 against 81 s of CPU, 73 s each)."""
    from treegen.run.sql import local_spark
    session = local_spark("-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")
    try:
        yield session
    finally:
        session.stop()


# -- engines from the registry, and the `engines` marker ---------------------------------------------

from treegen.run.java import keep_javac_loaded  # noqa: E402
from treegen.run.sql import ENGINES  # noqa: E402

SERVER_FIXTURES = {"postgres_dsn": "postgres", "mysql_server": "mysql", "spark": "spark"}  # fixture -> engine
EXTERNAL = set(SERVER_FIXTURES.values())  # engines beyond Python packages: a server, or Spark's JVM


def pytest_configure(config):
    config.addinivalue_line("markers", "engines: needs PostgreSQL, MariaDB or Spark (deselect with -m 'not engines')")
    config.addinivalue_line("markers", "slow: takes 5 s or more (a big model, compiled; a model trained): started early")
    keep_javac_loaded()  # each javac process warms the compiler up again: ~1 s of CPU a call


def pytest_collection_modifyitems(items):
    """Tests that start a server or Spark, directly or through a parameter naming the engine, are
    marked `engines`: `pytest -m "not engines"` runs the rest with no database installed.

    The order is for pytest-xdist's worksteal (scripts/test.sh, two workers), which hands each worker
    a contiguous half of the tests and lets an idle worker take the second half of the other's queue.
    The engine tests come first, so one worker runs them all and one Spark JVM, one PostgreSQL and one
    MariaDB start, not one per worker (199 s of CPU in two Spark JVMs, 169 s in one). The `slow` tests
    open the second half, so that the other worker starts with them and the queues end in short tests
    that either worker can take: a long test last in a queue leaves the other core idle (the three tests of
    CatBoost's pairs model last: 26 s, their model trained on both workers)."""
    engines, slow, rest = [], [], []
    for item in items:
        params = item.callspec.params.values() if hasattr(item, "callspec") else ()
        if (set(item.fixturenames) & set(SERVER_FIXTURES) or EXTERNAL & {p for p in params if isinstance(p, str)}
                or item.get_closest_marker("engines")):  # (marked: a process of its own starts one)
            item.add_marker(pytest.mark.engines)
            engines.append(item)
        else:
            (slow if item.get_closest_marker("slow") else rest).append(item)
    first_half = max(0, len(items) // 2 - len(engines))
    items[:] = engines + rest[:first_half] + slow + rest[first_half:]


def _connection(request, name: str) -> dict:
    """How treegen.run.sql reaches an engine: {} in process, a DSN for a server, Spark's session."""
    fixture = {engine: fixture for fixture, engine in SERVER_FIXTURES.items()}.get(name)
    if fixture is None:
        return {}
    value = request.getfixturevalue(fixture)  # a server starts on first use
    return {"spark": value} if fixture == "spark" else {"dsn": value}


@pytest.fixture
def connect(request):
    """engine name -> its connection options (a function, for tests parametrized over more than engines)."""
    return lambda name: _connection(request, name)


@pytest.fixture(params=list(ENGINES))
def engine(request):
    """(engine name, connection options) for each SQL engine of the registry."""
    return request.param, _connection(request, request.param)


@pytest.fixture
def installed_beside(tmp_path):
    """requirement -> a folder holding that release alone (pip --target, no dependencies): another release
    than the suite's (DuckDB's LTS, the oldest skops), for a process of its own with the folder first on
    its PYTHONPATH."""
    def install(requirement: str) -> str:
        folder = tmp_path / "beside" / requirement
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
                        "--target", str(folder), requirement], check=True, capture_output=True)
        return str(folder)
    return install
