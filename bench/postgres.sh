# A temporary PostgreSQL 15 cluster for the benchmark scripts that compare with PostgreSQL.
# Source it, then `start_postgres NAME USER [SETTING=VALUE ...]`: makes a cluster with initdb
# (--no-locale: C collation, so text compares bytewise; trust authentication; superuser USER) in
# a temporary directory NAME-postgres.XXXXXX, starts it on a free 127.0.0.1 port with the
# settings given (-c each), and sets postgres_port, postgres_pid and postgres_dir. As root, the
# cluster runs as the `postgres` user, since initdb refuses root. An EXIT trap stops it (pg_ctl
# stop -m fast) and removes the directory on exit, failure or Ctrl-C alike, keeping the exit
# status, so a script that sources this sets no EXIT trap of its own. QUARRY_POSTGRES_BIN
# overrides /usr/lib/postgresql/15/bin.

postgres_bin=${QUARRY_POSTGRES_BIN:-/usr/lib/postgresql/15/bin}
postgres_dir=
postgres_port=
postgres_pid=
postgres_as=()

# Stops the cluster and removes its directory; nothing when none was made.
stop_postgres() {
  [ -n "$postgres_dir" ] || return 0
  if [ -f "$postgres_dir/data/postmaster.pid" ]; then
    (cd "$postgres_dir" && "${postgres_as[@]}" "$postgres_bin/pg_ctl" stop -D "$postgres_dir/data" \
      -m fast -s) >/dev/null 2>&1 || true
  fi
  rm -rf "$postgres_dir"
  postgres_dir=
}

stop_postgres_on_exit() {
  local status=$?
  trap - EXIT INT TERM
  stop_postgres
  exit "$status"
}

start_postgres() {
  local name=$1 user=$2
  shift 2
  [ -x "$postgres_bin/initdb" ] || { echo "run.sh: $postgres_bin/initdb is missing (Debian's postgresql)" >&2; exit 1; }
  # A benchmark run in the foreground after this gets Ctrl-C too and stops its own servers;
  # the trap runs once it has ended.
  trap stop_postgres_on_exit EXIT
  trap 'exit 130' INT TERM
  postgres_dir=$(mktemp -d "${TMPDIR:-/tmp}/$name-postgres.XXXXXX")
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres: "$postgres_dir"
    postgres_as=(runuser -u postgres --)
  fi
  postgres_port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  local options="-p $postgres_port -k $postgres_dir -c listen_addresses=127.0.0.1"
  local setting
  for setting in "$@"; do options+=" -c $setting"; done
  # From the cluster's directory: the postgres user may not be allowed into the current one.
  (cd "$postgres_dir" && "${postgres_as[@]}" "$postgres_bin/initdb" -D "$postgres_dir/data" -U "$user" \
    --auth=trust --no-locale -E UTF8) >"$postgres_dir/initdb.log" 2>&1 ||
    { echo "run.sh: initdb failed" >&2; cat "$postgres_dir/initdb.log" >&2; exit 1; }
  (cd "$postgres_dir" && "${postgres_as[@]}" "$postgres_bin/pg_ctl" start -D "$postgres_dir/data" \
    -l "$postgres_dir/postgres.log" -w -s -o "$options") ||
    { echo "run.sh: PostgreSQL did not start" >&2; cat "$postgres_dir/postgres.log" >&2; exit 1; }
  postgres_pid=$(head -n1 "$postgres_dir/data/postmaster.pid")
  echo "run.sh: postgres pid $postgres_pid on port $postgres_port, cluster in $postgres_dir" >&2
}
