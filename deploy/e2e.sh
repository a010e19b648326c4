#!/usr/bin/env bash
# Browser tests against the real stack: a gunicorn + Celery (worker with beat) of their own on a separate port,
# with separate PostgreSQL / ClickHouse databases and a Redis database number of their own, then Playwright's test
# runner (frontend/playwright.config.ts): it seeds real data through the public APIs (frontend/e2e/global-setup.ts)
# and runs the specs (frontend/e2e/*.spec.ts) in Debian's headless Chromium. Stops what it started, whatever happens.
#   deploy/e2e.sh            called by `make test` (deploy/test.sh) and `make e2e`
#   E2E_KEEP=1 deploy/e2e.sh leave the e2e server running afterwards, to look at the pages by hand
#   E2E_PROXY=1 deploy/e2e.sh   the same through nginx in front (deploy/proxy.sh, on E2E_PROXY_BIND, default the
#                            app's port + 1): seeding and the specs go through the proxy, as users would
#   E2E_ONLY="compare" deploy/e2e.sh   only the specs whose title matches (Playwright's --grep)
# Scale (for the performance figures): E2E_DURATION_S (default 240 s per test), E2E_RPS (default 150).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"

# The stack's ClickHouse password (deploy/lib.sh: CLICKHOUSE_PASSWORD, else the one in the stack's var dir), read
# before the var dir below becomes the e2e stack's own.
CLICKHOUSE_PASSWORD=$(bash -c 'source "$1/deploy/lib.sh" && printf %s "$CLICKHOUSE_PASSWORD"' _ "$ROOT")
export CLICKHOUSE_PASSWORD

# Everything of the e2e stack is separate from `make run`'s and from the Python tests': the lib.sh defaults only
# apply to unset variables, so these win.
export TANKODROM_BIND="${E2E_BIND:-127.0.0.1:8765}"
export TANKODROM_VAR_DIR="$ROOT/var/e2e"
export DATABASE_URL="${E2E_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/tankodrom_e2e}"
export CLICKHOUSE_DATABASE="${E2E_CLICKHOUSE_DATABASE:-tankodrom_e2e}"
export REDIS_URL="${E2E_REDIS_URL:-redis://127.0.0.1:6379/13}"
export CELERY_BROKER_URL="$REDIS_URL" CELERY_RESULT_BACKEND="$REDIS_URL"
export TANKODROM_PUBLIC_URL="http://$TANKODROM_BIND"
if [[ "${E2E_PROXY:-0}" == 1 ]]; then
  E2E_PROXY_BIND="${E2E_PROXY_BIND:-${TANKODROM_BIND%:*}:$((${TANKODROM_BIND##*:} + 1))}"
  export TANKODROM_PUBLIC_URL="http://$E2E_PROXY_BIND"
fi
export DJANGO_DEBUG=0 TANKODROM_PRIVATE_INSTANCE=0
# The seeding writes quickly from one user: the write limit is for people, not for this script.
export TANKODROM_WRITE_RATE="100000/min"
# The seeding user keeps its components' baselines and KPIs: a maintainer of the default project, not the uploader
# a new account is by default.
export TANKODROM_DEFAULT_PROJECT_ROLE=maintainer
# The webhook spec's receiver listens on 127.0.0.1, standing in for a chat server inside a company's network, which
# an administrator allows this way (README "Notifications"); every other local address stays refused.
export TANKODROM_EGRESS_ALLOW=127.0.0.1/32
source "$ROOT/deploy/lib.sh"
cd "$ROOT"

E2E_RUN="$VAR/run"
mkdir -p "$E2E_RUN" "$LOG" "$ROOT/var/screenshots"
BASE="http://$TANKODROM_BIND"

cleanup() {
  local rc=$?
  if [[ "${E2E_KEEP:-0}" == 1 && $rc == 0 ]]; then
    say "e2e server left running at $BASE (stop: kill \$(cat $E2E_RUN/gunicorn.pid $E2E_RUN/celery.pid $E2E_RUN/celery-uploads.pid))"
    return
  fi
  [[ "${E2E_PROXY:-0}" == 1 ]] && TANKODROM_PROXY_DIR="$VAR/nginx" "$ROOT/deploy/proxy.sh" down
  stop_pidfile "$E2E_RUN/gunicorn.pid" "e2e gunicorn"
  stop_workers "$E2E_RUN"
  stop_pidfile "$E2E_RUN/oidc-dev.pid" "e2e OpenID provider"
  return $rc
}
trap cleanup EXIT

# ── prerequisites: services, browser, node modules, the built bundle ──────────────────────────────────────
ch_client --host "$CLICKHOUSE_HOST" --port "$CLICKHOUSE_PORT" --query "SELECT 1" >/dev/null 2>&1 \
  || die "ClickHouse does not answer on $CLICKHOUSE_HOST:$CLICKHOUSE_PORT: run 'make setup' first"
redis-cli -u "$REDIS_URL" ping 2>/dev/null | grep -q PONG || die "Redis does not answer: run 'make setup' first"
[[ -x /usr/bin/chromium ]] || apt_install chromium
[[ -d frontend/node_modules ]] || (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
# The pages under test must be the current sources: rebuild when any source is newer than the bundle.
if [[ ! -f frontend/dist/index.html ]] || [[ -n "$(cd frontend && find src index.html vite.config.ts package-lock.json -newer dist/index.html -print -quit)" ]]; then
  say "e2e: building the frontend"
  (cd frontend && npm run -s build >/dev/null)
fi

# ── fresh databases, migrated ─────────────────────────────────────────────────────────────────────────────
if pid_alive "$E2E_RUN/gunicorn.pid"; then stop_pidfile "$E2E_RUN/gunicorn.pid" "previous e2e gunicorn"; fi
stop_workers "$E2E_RUN"  # of a previous run, if any
say "e2e: fresh databases (PostgreSQL ${DATABASE_URL##*/}, ClickHouse $CLICKHOUSE_DATABASE, Redis ${REDIS_URL##*/})"
read -r pg_host pg_port pg_user pg_db < <("$PY" -c 'import sys; sys.path.insert(0, sys.argv[2]); from backend.env import parse_database_url as p; d = p(sys.argv[1]); print(d.host, d.port, d.user, d.name)' "$DATABASE_URL" "$ROOT")
[[ "$pg_db" == *e2e* ]] || die "refusing to drop database $pg_db: the e2e database name must contain 'e2e'"
psql -h "$pg_host" -p "$pg_port" -U "$pg_user" -d postgres -qc "DROP DATABASE IF EXISTS \"$pg_db\" WITH (FORCE)" >/dev/null
psql -h "$pg_host" -p "$pg_port" -U "$pg_user" -d postgres -qc "CREATE DATABASE \"$pg_db\"" >/dev/null
[[ "$CLICKHOUSE_DATABASE" == *e2e* ]] || die "refusing to drop ClickHouse database $CLICKHOUSE_DATABASE: its name must contain 'e2e'"
ch_client --host "$CLICKHOUSE_HOST" --port "$CLICKHOUSE_PORT" --query "DROP DATABASE IF EXISTS $CLICKHOUSE_DATABASE"
redis-cli -u "$REDIS_URL" flushdb >/dev/null
# The seed file describes the previous run's data: without it, the test runner's global setup seeds anew.
rm -rf "$VAR/uploads" "$VAR"/celerybeat-schedule* "$VAR/seed.json" "$VAR/test-results"
"$PY" manage.py migrate --noinput -v 0
"$PY" manage.py ch_migrate >/dev/null
"$PY" manage.py collectstatic --noinput -v 0
TOKEN=$("$PY" manage.py issue_token e2e --name "browser tests" 2>/dev/null | tail -1)
[[ -n "$TOKEN" ]] || die "could not issue an API token"

# ── the local OpenID provider (deploy/oidc-dev) for the sign-on spec (frontend/e2e/05-sso.spec.ts) ────────────
[[ -d deploy/oidc-dev/node_modules ]] || (cd deploy/oidc-dev && npm ci --no-audit --no-fund --loglevel=error)
stop_pidfile "$E2E_RUN/oidc-dev.pid" "previous e2e OpenID provider"
OIDC_PORT=$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export E2E_OIDC_LOGIN=e2e-sso E2E_OIDC_PASSWORD=e2e-sso-not-secret E2E_OIDC_LABEL="Dev provider"
export TANKODROM_OIDC_ISSUER="http://127.0.0.1:$OIDC_PORT" TANKODROM_OIDC_CLIENT_ID=tankodrom-e2e
export TANKODROM_OIDC_CLIENT_SECRET=e2e-client-secret TANKODROM_OIDC_LABEL="$E2E_OIDC_LABEL"
export TANKODROM_OIDC_SCOPES="openid profile email groups"
printf '{"%s": {"sub": "e2e-sso-sub", "password": "%s", "email": "e2e-sso@example.org", "name": "E2E SSO"}}' \
  "$E2E_OIDC_LOGIN" "$E2E_OIDC_PASSWORD" >"$E2E_RUN/oidc-accounts.json"
printf '[{"client_id": "%s", "client_secret": "%s", "redirect_uris": ["%s/sso/oidc/callback"], "post_logout_redirect_uris": ["%s/sso/logged-out"]}]' \
  "$TANKODROM_OIDC_CLIENT_ID" "$TANKODROM_OIDC_CLIENT_SECRET" "$TANKODROM_PUBLIC_URL" "$TANKODROM_PUBLIC_URL" >"$E2E_RUN/oidc-clients.json"
OIDC_DEV_PORT=$OIDC_PORT OIDC_DEV_ACCOUNTS="$E2E_RUN/oidc-accounts.json" OIDC_DEV_CLIENTS="$E2E_RUN/oidc-clients.json" \
  node deploy/oidc-dev/server.mjs >"$LOG/e2e-oidc-dev.log" 2>&1 &
echo $! >"$E2E_RUN/oidc-dev.pid"
wait_for 30 "the local OpenID provider" curl -sf -o /dev/null "$TANKODROM_OIDC_ISSUER/.well-known/openid-configuration"

# ── the application, as `make run` starts it ──────────────────────────────────────────────────────────────
say "e2e: starting gunicorn on $BASE and the Celery workers (with beat)"
GUNICORN_THREADS=4 "$ROOT/.venv/bin/gunicorn" -c "$ROOT/deploy/gunicorn.conf.py" --workers 2 \
  --bind "$TANKODROM_BIND" --pid "$E2E_RUN/gunicorn.pid" >"$LOG/e2e-gunicorn.log" 2>&1 &
start_workers "$E2E_RUN" "e2e-"
wait_for 60 "the e2e web server" curl -sf -o /dev/null "$BASE/healthz"
if [[ "${E2E_PROXY:-0}" == 1 ]]; then
  rm -rf "$VAR/nginx/cache"
  TANKODROM_PROXY_DIR="$VAR/nginx" "$ROOT/deploy/proxy.sh" up "$E2E_PROXY_BIND" "$TANKODROM_BIND"
  BASE="http://$E2E_PROXY_BIND"
fi

# ── real data through the public API, then the browser ────────────────────────────────────────────────────
# Playwright exits non-zero when a spec fails (or its global setup, the seeding, does): the script then dies with it.
say "e2e: seeding tests through the API, then the browser specs (headless Chromium), screenshots in var/screenshots/"
only=()
[[ -n "${E2E_ONLY:-}" ]] && only=(--grep "$E2E_ONLY")
(cd frontend && E2E_BASE_URL="$BASE" E2E_TOKEN="$TOKEN" E2E_SEED="$VAR/seed.json" E2E_SCREENSHOTS="$ROOT/var/screenshots" \
  npx --no-install playwright test "${only[@]}") || {
  [[ -f "$VAR/seed.json" ]] || { tail -n 40 "$LOG/e2e-celery-uploads.log" >&2; die "seeding failed (logs: $LOG/e2e-gunicorn.log, $LOG/e2e-celery*.log)"; }
  die "browser specs failed (logs: $LOG/e2e-gunicorn.log, $LOG/e2e-celery*.log; screenshots var/screenshots/FAILED-*.png)"
}
