# SPDX-License-Identifier: MIT
#
# A PostgreSQL server of the test's own, for the fleet index's tests (docs/fleet.md; sourced,
# not run). The server is Debian's (the postgresql package; scripts/setup.sh installs it): its
# binaries are found under /usr/lib/postgresql/VERSION/bin, the highest version, never through
# PATH. It lives in a directory of the test's, listens on a Unix socket in that directory only
# (no TCP port, so tests running at once never collide), with fsync off (speed: the data is
# thrown away) and trust authentication for local connections (the roles are the tests').
#
#   pg_start DIR     initdb + start in DIR (emptied), database `fleet`; skips (77) without a server
#   pg_stop          stop it (fast shutdown), waiting for it to be gone
#   pg_restart       start it again in the same DIR, on the same socket
#   pg_psql SQL      run SQL in database fleet as the superuser; its output unaligned, tuples only
#   pg_uri ROLE      a libpq URI reaching database fleet as ROLE over the socket
#   pg_role ROLE     create a login role ROLE (no rights beyond CONNECT; the test grants more)
#   pg_pid           the postmaster's PID (from DIR/postmaster.pid), for kill -STOP/-CONT
#
# The server runs as the `postgres` user when the test runs as root (postgres refuses root),
# else as the test's user. Sourcing this file installs no trap of its own: the sourcing script
# calls pg_cleanup from its exit hook (tests/lib/e2e.sh's $e2e_exit_hook), which CONTinues a
# stopped server and stops it. Nothing is ever killed by name: only the PID the server wrote.

pg_dir= pg_bin= pg_user=

# pg_find_bin: the highest installed server version's bin directory, or nothing.
pg_find_bin() {
  local d best= bestv=0 v
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/postgres" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] || continue
    v=$(basename "$(dirname "$d")")
    v=${v%%.*}
    case $v in '' | *[!0-9]*) continue ;; esac
    if [ "$v" -gt "$bestv" ]; then bestv=$v best=$d; fi
  done
  echo "$best"
}

# pg_as CMD...: CMD as the server's user.
pg_as() {
  if [ "$(id -u)" = 0 ]; then
    setpriv --reuid="$pg_user" --regid="$(id -g "$pg_user")" --init-groups -- "$@"
  else
    "$@"
  fi
}

pg_start() {
  pg_dir=$1
  pg_bin=$(pg_find_bin)
  [ -n "$pg_bin" ] || skip "no PostgreSQL server under /usr/lib/postgresql (scripts/setup.sh installs it)"
  command -v psql >/dev/null || skip "no psql"
  if [ "$(id -u)" = 0 ]; then
    if id postgres >/dev/null 2>&1; then pg_user=postgres; else pg_user=nobody; fi
  else
    pg_user=$(id -un)
  fi
  rm -rf "$pg_dir"
  mkdir -p "$pg_dir"
  # The socket's directory path must fit sun_path (107 bytes) with ".s.PGSQL.5432".
  [ "${#pg_dir}" -le 90 ] || fail "server directory path too long for a Unix socket: $pg_dir"
  # Every directory above DIR must be searchable by the server's user: a directory made with
  # mktemp -d in /tmp is (nothing above it is changed here).
  [ "$(id -u)" = 0 ] && chown "$pg_user" "$pg_dir"
  pg_as "$pg_bin/initdb" -D "$pg_dir/data" -U postgres -A trust --no-sync -E UTF8 \
    --locale=C >"$pg_dir/initdb.log" 2>&1 || fail "initdb failed: $(tail -5 "$pg_dir/initdb.log")"
  cat >>"$pg_dir/data/postgresql.conf" <<EOF
listen_addresses = ''
unix_socket_directories = '$pg_dir'
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 60
shared_buffers = 16MB
EOF
  printf 'local all all trust\n' >"$pg_dir/data/pg_hba.conf"
  pg_restart
  pg_psql_db postgres "CREATE DATABASE fleet" >/dev/null || fail "cannot create database fleet"
}

pg_restart() {
  [ -n "$pg_dir" ] || fail "pg_restart before pg_start"
  pg_as "$pg_bin/pg_ctl" -D "$pg_dir/data" -l "$pg_dir/server.log" -w -t 30 start \
    >"$pg_dir/pg_ctl.log" 2>&1 || fail "postgres did not start: $(tail -5 "$pg_dir/server.log")"
}

pg_pid() {
  [ -f "$pg_dir/data/postmaster.pid" ] && head -1 "$pg_dir/data/postmaster.pid"
}

pg_stop() {
  [ -n "$pg_dir" ] && [ -f "$pg_dir/data/postmaster.pid" ] || return 0
  local pid
  pid=$(pg_pid)
  [ -n "$pid" ] && kill -CONT "$pid" 2>/dev/null || true
  pg_as "$pg_bin/pg_ctl" -D "$pg_dir/data" -w -t 30 -m fast stop >>"$pg_dir/pg_ctl.log" 2>&1 || true
}

# pg_cleanup: for the sourcing script's exit hook.
pg_cleanup() { pg_stop; }

pg_psql_db() {
  local db=$1
  shift
  psql -X -q -A -t -v ON_ERROR_STOP=1 -h "$pg_dir" -U postgres -d "$db" -c "$*"
}

pg_psql() { pg_psql_db fleet "$@"; }

pg_uri() { echo "postgresql:///fleet?host=$pg_dir&user=$1"; }

pg_role() {
  pg_psql "CREATE ROLE \"$1\" LOGIN; GRANT CONNECT ON DATABASE fleet TO \"$1\"" >/dev/null
}
