# Shared helpers for the local stack scripts. Sourced, not run.
# shellcheck shell=bash
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VAR="${TANKODROM_VAR_DIR:-$ROOT/var}"
RUN="$VAR/run"
LOG="$VAR/log"
mkdir -p "$RUN" "$LOG"

# Load the project's .env (same variables as deploy/env.example) if the user made one.
if [[ -f "$ROOT/.env" ]]; then
  set -a
  # shellcheck disable=SC1091
  source "$ROOT/.env"
  set +a
fi

: "${CLICKHOUSE_HOST:=127.0.0.1}"
: "${CLICKHOUSE_PORT:=9000}"
: "${DATABASE_URL:=postgres://postgres@127.0.0.1:5432/tankodrom}"
: "${REDIS_URL:=redis://127.0.0.1:6379/0}"
: "${TANKODROM_BIND:=127.0.0.1:8000}"
export CLICKHOUSE_HOST CLICKHOUSE_PORT DATABASE_URL REDIS_URL TANKODROM_BIND

# The password of the app's ClickHouse user (`default`): CLICKHOUSE_PASSWORD when set (production, or a server
# someone else runs); otherwise the local server's own, generated once into the var dir (readable by its owner
# only) and rendered into that server's users.xml by deploy/stack.sh. Exported, so that everything started from
# here (gunicorn, Celery, manage.py, pytest, the e2e stack, benches) connects with it. backend/env.py's
# clickhouse_password() reads the same file when the variable is unset (a bare `.venv/bin/pytest`): keep the two
# paths equal (backend/core/tests/test_clickhouse_password.py checks that they are).
: "${CLICKHOUSE_PASSWORD_FILE:=$VAR/clickhouse/password}"
if [[ -z "${CLICKHOUSE_PASSWORD:-}" ]]; then
  if [[ ! -s "$CLICKHOUSE_PASSWORD_FILE" ]]; then
    mkdir -p "$(dirname "$CLICKHOUSE_PASSWORD_FILE")"
    # 192 random bits in hex: nothing to quote in XML, sed or a shell. Written aside, then moved into place
    # without overwriting, so that two scripts starting at once agree on one password.
    (
      umask 077
      head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$CLICKHOUSE_PASSWORD_FILE.$$"
      mv -n "$CLICKHOUSE_PASSWORD_FILE.$$" "$CLICKHOUSE_PASSWORD_FILE"
      rm -f "$CLICKHOUSE_PASSWORD_FILE.$$"
    )
  fi
  CLICKHOUSE_PASSWORD=$(<"$CLICKHOUSE_PASSWORD_FILE")
fi
export CLICKHOUSE_PASSWORD CLICKHOUSE_PASSWORD_FILE

xml_escape() { printf '%s' "$1" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'; }
sed_escape() { printf '%s' "$1" | sed -e 's/[\\|&]/\\&/g'; }  # for the right side of s|...|...|
password_sha256_hex() { printf '%s' "$CLICKHOUSE_PASSWORD" | sha256sum | cut -d' ' -f1; }

# clickhouse-client as the app's user. The password goes in a client config file (owner-only, in the run dir), not
# on the command line, where any local user would read it from the process list.
CLICKHOUSE_CLIENT_CONFIG="$RUN/clickhouse-client.xml"
(
  umask 077
  printf '<config><user>default</user><password>%s</password></config>\n' "$(xml_escape "$CLICKHOUSE_PASSWORD")" \
    >"$CLICKHOUSE_CLIENT_CONFIG.$$"
  mv -f "$CLICKHOUSE_CLIENT_CONFIG.$$" "$CLICKHOUSE_CLIENT_CONFIG"
)
ch_client() { clickhouse-client --config-file "$CLICKHOUSE_CLIENT_CONFIG" "$@"; }

PY="$ROOT/.venv/bin/python"

# Celery workers (queues routed in backend/settings.py's CELERY_TASK_ROUTES): the tank's buffer flush runs every
# second on `ingest`, in a worker of its own, so that a phout ingestion of minutes (`uploads`, with the reports'
# post-processing on `analysis`) never holds it back. Calls to the outside (notification deliveries to URLs users
# configure) run on `outbound` in a third pool of threads: a target that never answers holds one of its threads for
# the timeout, and nothing else.
STREAM_WORKER_QUEUES="ingest,default"
UPLOAD_WORKER_QUEUES="uploads,analysis"
OUTBOUND_WORKER_QUEUES="outbound"

start_workers() { # start_workers PIDDIR LOGPREFIX: the three workers in the background (the stream one runs beat)
  local piddir=$1 prefix=$2
  setsid nohup "$ROOT/.venv/bin/celery" -A backend worker -B -n "stream@%h" -Q "$STREAM_WORKER_QUEUES" \
    --concurrency 1 --loglevel INFO --pidfile "$piddir/celery.pid" --schedule "$VAR/celerybeat-schedule" \
    >>"$LOG/${prefix}celery.log" 2>&1 &
  setsid nohup "$ROOT/.venv/bin/celery" -A backend worker -n "uploads@%h" -Q "$UPLOAD_WORKER_QUEUES" \
    --concurrency 2 --loglevel INFO --pidfile "$piddir/celery-uploads.pid" \
    >>"$LOG/${prefix}celery-uploads.log" 2>&1 &
  setsid nohup "$ROOT/.venv/bin/celery" -A backend worker -n "outbound@%h" -Q "$OUTBOUND_WORKER_QUEUES" \
    --pool threads --concurrency 8 --loglevel INFO --pidfile "$piddir/celery-outbound.pid" \
    >>"$LOG/${prefix}celery-outbound.log" 2>&1 &
}

stop_workers() { # stop_workers PIDDIR
  stop_pidfile "$1/celery.pid" "Celery worker (tank stream)"
  stop_pidfile "$1/celery-uploads.pid" "Celery worker (uploads)"
  stop_pidfile "$1/celery-outbound.pid" "Celery worker (outbound)"
}

workers_alive() { pid_alive "$1/celery.pid" && pid_alive "$1/celery-uploads.pid" && pid_alive "$1/celery-outbound.pid"; }

say() { printf '\033[1m[tankodrom]\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31m[tankodrom]\033[0m %s\n' "$*" >&2; exit 1; }

# Record that this project started a service, so that stopping touches only what we started.
mark_started() { echo "$1" >>"$RUN/started-services"; sort -u -o "$RUN/started-services" "$RUN/started-services"; }

wait_for() { # wait_for SECONDS DESCRIPTION COMMAND...
  local seconds=$1 what=$2; shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    ((SECONDS < deadline)) || die "$what did not come up within ${seconds}s"
    sleep 0.3
  done
}

APT_UPDATED=0
apt_install() {
  if [[ $APT_UPDATED == 0 ]]; then
    say "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >"$LOG/apt.log" 2>&1 || die "apt-get update failed (see $LOG/apt.log)"
    APT_UPDATED=1
  fi
  say "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >>"$LOG/apt.log" 2>&1 || die "apt-get install $* failed (see $LOG/apt.log)"
}

pid_alive() { [[ -f "$1" ]] && kill -0 "$(cat "$1")" 2>/dev/null; }

stop_pidfile() { # stop_pidfile FILE NAME: TERM, wait, then KILL
  local file=$1 name=$2
  if pid_alive "$file"; then
    local pid; pid=$(cat "$file")
    say "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$file"
}
