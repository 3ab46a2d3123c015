#!/bin/sh
# What the SQL tests' engines need on a fresh Debian machine (run as root, or source it).
# SQLite comes with Python; DuckDB, psycopg, PyMySQL and PySpark come from pyproject's [test] extra.
# PostgreSQL: the server binaries (initdb, pg_ctl) and a `postgres` user to run them as, since
# the server refuses to run as root. MariaDB (the mysql dialect): mariadbd and mariadb-install-db
# (mariadb-server-core) and the my_print_defaults that the latter calls (mariadb-client-core); not
# mariadb-server, which would start a service of its own: the tests start their own server (as root,
# with --user=root) and connect with PyMySQL. Spark: a Java runtime. runuser comes with util-linux.
set -eu

missing=""
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing="$missing postgresql"
command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || missing="$missing mariadb-server-core"
command -v my_print_defaults >/dev/null 2>&1 || missing="$missing mariadb-client-core"
command -v java >/dev/null 2>&1 || missing="$missing default-jre-headless"
command -v runuser >/dev/null 2>&1 || missing="$missing util-linux"
if [ -n "$missing" ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing
fi

# The Debian package creates the user; a server installed another way may not have.
id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/sh postgres

# The package may start a cluster of its own: the tests start their own server on a free port.
ls /usr/lib/postgresql/*/bin/initdb
/usr/sbin/mariadbd --version
java -version 2>&1 | head -n 1
