#!/usr/bin/env bash
# A throwaway PostgreSQL server for voxen's tests and benchmarks: Debian's server binaries (postgresql-15, installed by
# scripts/install-deps.sh), its data directory and its Unix socket in one folder, no TCP port, trust authentication
# for the superuser `voxen`, and a database `voxen`. PostgreSQL refuses to run as root, so as root the server runs as
# the `postgres` user (made by Debian's package), and the folder is that user's.
#
# Usage:
#   pg_server.sh start DIR            initialise DIR (if it has no data/ yet) and start the server; its socket is in DIR
#   pg_server.sh stop DIR             stop it (fast shutdown: sessions are ended, committed work is kept)
#   pg_server.sh destroy DIR          stop it at once if it runs and remove DIR
#   pg_server.sh start-fixture FILE   make a new DIR under /tmp, start a server there and write DIR into FILE (ctest's
#                                     fixture: the store's tests read FILE through $VOXEN_PG_SERVER_FILE)
#   pg_server.sh stop-fixture FILE    destroy the server FILE names, and FILE
# Extra server settings may be given in $VOXEN_PG_OPTIONS (e.g. "-c fsync=off").
set -euo pipefail

die() { echo "pg_server.sh: $*" >&2; exit 1; }
[ $# -eq 2 ] || die "usage: pg_server.sh start|stop|destroy DIR, or start-fixture|stop-fixture FILE"
cmd=$1
arg=$2

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
[ -n "$bin" ] && [ -x "$bin/initdb" ] ||
  die "no PostgreSQL server under /usr/lib/postgresql (install it with: bash scripts/install-deps.sh)"

as_server() {
  if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
  local dir=$1
  mkdir -p "$dir"
  if [ "$(id -u)" -eq 0 ]; then chown postgres: "$dir"; fi
  chmod 700 "$dir"
  local fresh=0
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    as_server "$bin/initdb" -D "$dir/data" -U voxen -A trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 ||
      die "initdb failed; see $dir/initdb.log"
    fresh=1
  fi
  # A server left running by an interrupted run (its postmaster.pid) is stopped first.
  if [ -f "$dir/data/postmaster.pid" ]; then as_server "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true; fi
  as_server "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses='' -c unix_socket_directories='$dir' ${VOXEN_PG_OPTIONS:-}" start >/dev/null ||
    die "the server did not start; see $dir/server.log"
  if [ $fresh -eq 1 ]; then
    as_server "$bin/createdb" -h "$dir" -U voxen voxen || die "createdb failed"
  fi
}

stop() {
  local dir=$1
  [ -f "$dir/data/postmaster.pid" ] || return 0
  as_server "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null
}

destroy() {
  local dir=$1
  if [ -f "$dir/data/postmaster.pid" ]; then as_server "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true; fi
  rm -rf "$dir"
}

case $cmd in
  start) start "$arg" ;;
  stop) stop "$arg" ;;
  destroy) destroy "$arg" ;;
  start-fixture)
    if [ -f "$arg" ]; then destroy "$(cat "$arg")"; fi
    # Under /tmp, not the build folder: the server's user must be able to reach it (a clone in a private folder
    # would not let it).
    dir=$(mktemp -d /tmp/voxen-pg-XXXXXX)
    start "$dir"
    echo "$dir" >"$arg"
    echo "PostgreSQL test server running in $dir"
    ;;
  stop-fixture)
    [ -f "$arg" ] || exit 0
    destroy "$(cat "$arg")"
    rm -f "$arg"
    ;;
  *) die "unknown command '$cmd'" ;;
esac
