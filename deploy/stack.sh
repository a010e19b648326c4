#!/usr/bin/env bash
# The local stack without Docker: ClickHouse, PostgreSQL and Redis, each reused if it already answers,
# otherwise started (and installed from Debian's packages when missing).
#   deploy/stack.sh up     ensure all three answer
#   deploy/stack.sh down   stop the ones this project started (listed in var/run/started-services)
#   deploy/stack.sh stop-clickhouse | start-clickhouse   (for fault tests)
source "$(dirname "$0")/lib.sh"

CLICKHOUSE_JEMALLOC_CONF="percpu_arena:percpu,oversize_threshold:0,muzzy_decay_ms:5000,dirty_decay_ms:5000"

ch_answers() { ch_client --host "$CLICKHOUSE_HOST" --port "$CLICKHOUSE_PORT" --query "SELECT 1"; }
ch_port_open() { (exec 3<>"/dev/tcp/$CLICKHOUSE_HOST/$CLICKHOUSE_PORT") 2>/dev/null; }

render_users() { # the users of our server, with the app user's password (its hash only), owner-readable
  local dir="$VAR/clickhouse"
  (
    umask 077
    sed -e "s|@PASSWORD_SHA256_HEX@|$(password_sha256_hex)|" "$ROOT/deploy/clickhouse/users.xml" >"$dir/users.xml.$$"
    mv -f "$dir/users.xml.$$" "$dir/users.xml"
  )
}

start_clickhouse() {
  command -v clickhouse-server >/dev/null || apt_install clickhouse-server clickhouse-client
  local dir="$VAR/clickhouse"
  mkdir -p "$dir/data" "$dir/tmp" "$dir/log" "$dir/user_files" "$dir/format_schemas"
  sed -e "s|@VAR@|$VAR|g" -e "s|@TCP_PORT@|$CLICKHOUSE_PORT|g" \
    "$ROOT/deploy/clickhouse/config.xml.in" >"$dir/config.xml"
  render_users
  say "starting ClickHouse on $CLICKHOUSE_HOST:$CLICKHOUSE_PORT (data in $dir)"
  # The Debian package's init script needs systemd; run the server directly, detached, with our config.
  # MALLOC_CONF: the jemalloc options ClickHouse's own builds (the official image) compile in
  # (contrib/jemalloc-cmake). Debian's server links the system jemalloc with its defaults instead, whose arena for
  # allocations over 8 MiB returns their pages to the kernel as soon as they are freed: every column of an INSERT's
  # squashed blocks was then first-touched again, page faults that cost a large INSERT much of its system time
  # (bench/phout_upload/README.md has the figures).
  MALLOC_CONF="$CLICKHOUSE_JEMALLOC_CONF" clickhouse-server --daemon --config-file="$dir/config.xml" --pid-file="$RUN/clickhouse.pid" \
    >>"$dir/log/stdout.log" 2>&1 </dev/null
  wait_for 60 "ClickHouse" ch_answers
  mark_started clickhouse
}

ensure_clickhouse() {
  command -v clickhouse-client >/dev/null || apt_install clickhouse-server clickhouse-client
  if ch_answers >/dev/null 2>&1; then say "ClickHouse answers on $CLICKHOUSE_HOST:$CLICKHOUSE_PORT"; return; fi
  [[ $CLICKHOUSE_HOST == 127.0.0.1 || $CLICKHOUSE_HOST == localhost ]] || die "ClickHouse at $CLICKHOUSE_HOST:$CLICKHOUSE_PORT does not answer"
  if ch_port_open; then
    # Our server, started before it had a password (or with another one): ClickHouse rereads its users' file by
    # itself within seconds, so rendering it is enough; no restart.
    if pid_alive "$RUN/clickhouse.pid" && [[ -f "$VAR/clickhouse/config.xml" ]]; then
      say "giving the running ClickHouse on $CLICKHOUSE_HOST:$CLICKHOUSE_PORT its password (CLICKHOUSE_PASSWORD, else $CLICKHOUSE_PASSWORD_FILE)"
      render_users
      wait_for 30 "ClickHouse with the new password" ch_answers
      return
    fi
    die "ClickHouse on $CLICKHOUSE_HOST:$CLICKHOUSE_PORT is not ours and refuses our password: set CLICKHOUSE_PASSWORD (the password of its 'default' user) in .env or the environment"
  fi
  start_clickhouse
}

pg_parts() { # host port user dbname from DATABASE_URL
  "$PY" -c 'import sys; sys.path.insert(0, sys.argv[2]); from backend.env import parse_database_url as p; d = p(sys.argv[1]); print(d.host, d.port, d.user, d.name)' "$DATABASE_URL" "$ROOT"
}

ensure_postgres() {
  read -r host port user dbname < <(pg_parts)
  if ! command -v pg_isready >/dev/null; then apt_install postgresql; fi
  if ! pg_isready -q -h "$host" -p "$port"; then
    [[ $host == 127.0.0.1 || $host == localhost ]] || die "PostgreSQL at $host:$port does not answer"
    if [[ -z "$(ls /etc/postgresql 2>/dev/null)" ]]; then
      apt_install postgresql
      local ver; ver=$(ls /etc/postgresql | sort -V | tail -1)
      # A fresh Debian cluster asks passwords on TCP; the local default URL has none. Trust loopback only.
      sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "/etc/postgresql/$ver/main/pg_hba.conf"
    fi
    local ver; ver=$(ls /etc/postgresql | sort -V | tail -1)
    say "starting PostgreSQL $ver cluster 'main'"
    pg_ctlcluster --skip-systemctl-redirect "$ver" main start || die "could not start PostgreSQL $ver/main"
    wait_for 30 "PostgreSQL" pg_isready -q -h "$host" -p "$port"
    mark_started "postgres:$ver"
  else
    say "PostgreSQL answers on $host:$port"
  fi
  if ! psql -h "$host" -p "$port" -U "$user" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='$dbname'" | grep -q 1; then
    say "creating PostgreSQL database $dbname"
    psql -h "$host" -p "$port" -U "$user" -d postgres -qc "CREATE DATABASE \"$dbname\"" >/dev/null
  fi
}

redis_answers() { redis-cli -u "$REDIS_URL" ping | grep -q PONG; }

ensure_redis() {
  command -v redis-server >/dev/null || apt_install redis-server
  if redis_answers 2>/dev/null; then say "Redis answers at $REDIS_URL"; return; fi
  local port; port=$("$PY" -c 'import sys; from urllib.parse import urlparse; print(urlparse(sys.argv[1]).port or 6379)' "$REDIS_URL")
  mkdir -p "$VAR/redis"
  say "starting Redis on 127.0.0.1:$port (append-only file in $VAR/redis)"
  # appendonly: the ingest buffer lives here, and an accepted push must survive a restart.
  redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --dir "$VAR/redis" --appendonly yes \
    --pidfile "$RUN/redis.pid" --logfile "$LOG/redis.log"
  wait_for 20 "Redis" redis_answers
  mark_started redis
}

stop_started() {
  [[ -f "$RUN/started-services" ]] || { say "no services were started by this project"; return; }
  while read -r svc; do
    case "$svc" in
      clickhouse) stop_pidfile "$RUN/clickhouse.pid" ClickHouse ;;
      redis) stop_pidfile "$RUN/redis.pid" Redis ;;
      postgres:*) say "stopping PostgreSQL ${svc#postgres:}"; pg_ctlcluster --skip-systemctl-redirect "${svc#postgres:}" main stop || true ;;
    esac
  done <"$RUN/started-services"
  rm -f "$RUN/started-services"
}

case "${1:-up}" in
  up) ensure_clickhouse; ensure_postgres; ensure_redis ;;
  down) stop_started ;;
  stop-clickhouse)
    if pid_alive "$RUN/clickhouse.pid"; then stop_pidfile "$RUN/clickhouse.pid" ClickHouse
    else pkill -f "clickhouse-server --config-file=$VAR/clickhouse/config.xml" || die "no ClickHouse of ours is running"; fi ;;
  start-clickhouse) ch_answers >/dev/null 2>&1 || start_clickhouse ;;
  *) die "usage: $0 up|down|stop-clickhouse|start-clickhouse" ;;
esac
