#!/usr/bin/env bash
# A throwaway PostgreSQL server from Debian's `postgresql` package, for the scale-out recipe
# (run.sh) and benchmark (bench/scale_out.py); see Docs/scale-out.md.
#
#   postgres.sh start DIR    initdb into DIR/data, start on a free port on 127.0.0.1 only
#                            (no Unix socket, password auth); prints the state URL
#   postgres.sh stop DIR     stop it (fast) and delete DIR
#
# PostgreSQL refuses to run as root: as root the server runs as the `postgres` user (which the
# package creates), and DIR is handed to it. fsync is off: this server is for trying things,
# not for keeping data (a production server keeps fsync on: Docs/scale-out.md).
set -euo pipefail
die() { printf 'postgres.sh: %s\n' "$*" >&2; exit 1; }
[ $# = 2 ] || die "usage: postgres.sh start|stop DIR"
cmd=$1 dir=$2
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$bin" ] && [ -x "$bin/initdb" ] || die "PostgreSQL is not installed (apt-get install postgresql, or make test-tools)"
as_server() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

case $cmd in
start)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    password=pw-$(head -c 6 /dev/urandom | od -An -tx1 | tr -d ' \n')
    printf '%s\n' "$password" > "$dir/pwfile"
    [ "$(id -u)" != 0 ] || chown -R postgres:postgres "$dir"
    as_server "$bin/initdb" -D "$dir/data" -U tributary --pwfile="$dir/pwfile" --auth=scram-sha-256 \
        -E UTF8 --locale=C --no-sync > "$dir/initdb.log" 2>&1 || die "initdb failed: $(tail -5 "$dir/initdb.log")"
    rm -f "$dir/pwfile"
    opts="-c listen_addresses=127.0.0.1 -p $port -c unix_socket_directories='' -c fsync=off -c synchronous_commit=off"
    opts="$opts -c max_connections=200 -c shared_preload_libraries=pg_stat_statements ${PG_OPTIONS:-}"
    as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 -o "$opts" start > "$dir/pg_ctl.log" 2>&1 \
        || die "pg_ctl start failed: $(tail -5 "$dir/server.log" 2>/dev/null)"
    printf 'postgres://tributary:%s@127.0.0.1:%s/postgres\n' "$password" "$port" | tee "$dir/url"
    ;;
stop)
    [ -d "$dir/data" ] && as_server "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop > /dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
*) die "unknown command '$cmd' (start or stop)" ;;
esac
