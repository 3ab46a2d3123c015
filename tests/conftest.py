"""Engines for the whole test run: a throwaway PostgreSQL server and a local SparkSession.

No skips: when an engine cannot start, the tests that need it fail with the reason."""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile

import pytest


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


@pytest.fixture(scope="session")
def spark():
    """A local SparkSession (one core, one shuffle partition, no UI) for the whole run."""
    from treegen.run.sql import local_spark
    session = local_spark()
    try:
        yield session
    finally:
        session.stop()
