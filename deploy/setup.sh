#!/usr/bin/env bash
# Everything `make run` and `make test` need before they serve or test: the virtualenv with pinned
# dependencies, the frontend bundle, the three services and the migrations of both stores.
# Each step is skipped when its inputs have not changed, so a second run is fast.
source "$(dirname "$0")/lib.sh"

ensure_python() {
  # The C extension (analytics/_phout_fast.c) is built by the same install: its source is part of the stamp.
  local stamp_src; stamp_src=$(cat "$ROOT/pyproject.toml" "$ROOT"/analytics/*.c | sha256sum | cut -c1-16)
  if [[ ! -x "$PY" ]]; then
    say "creating .venv"
    python3 -m venv "$ROOT/.venv" || { apt_install python3-venv; python3 -m venv "$ROOT/.venv"; }
  fi
  if [[ ! -f "$ROOT/.venv/.installed-$stamp_src" ]]; then
    command -v gcc >/dev/null || apt_install gcc
    [[ -f "$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')/Python.h" ]] || apt_install python3-dev
    # python-ldap (LDAP sign-on) is built from source against OpenLDAP's and Cyrus SASL's headers.
    [[ -f /usr/include/ldap.h && -f /usr/include/sasl/sasl.h ]] || apt_install libldap2-dev libsasl2-dev
    say "installing Python dependencies (pinned in pyproject.toml) and building the C parser"
    "$PY" -m pip install -q --upgrade pip setuptools wheel >"$LOG/pip.log" 2>&1 || die "pip upgrade failed (see $LOG/pip.log)"
    "$PY" -m pip install -q -e "$ROOT[dev]" >>"$LOG/pip.log" 2>&1 || die "pip install failed (see $LOG/pip.log)"
    rm -f "$ROOT"/.venv/.installed-*
    touch "$ROOT/.venv/.installed-$stamp_src"
  fi
}

# npm ci in DIR ($1) unless its node_modules were installed from this very lock file; output in $LOG/$2.log,
# $3 says what is installed.
npm_ci_once() {
  local dir="$1" log="$LOG/$2.log" what="$3"
  local lock_stamp; lock_stamp=$(sha256sum "$dir/package-lock.json" | cut -c1-16)
  if [[ ! -f "$dir/node_modules/.installed-$lock_stamp" ]]; then
    say "installing $what"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) >"$log" 2>&1 || die "npm ci in $dir failed (see $log)"
    touch "$dir/node_modules/.installed-$lock_stamp"
  fi
}

ensure_frontend() {
  command -v npm >/dev/null || apt_install nodejs npm
  # The browser the tests drive (playwright-core with Debian's build): the live page's test in the Python suite
  # needs it as well as deploy/e2e.sh.
  [[ -x /usr/bin/chromium ]] || apt_install chromium
  local fe="$ROOT/frontend"
  npm_ci_once "$fe" npm "npm dependencies (package-lock.json)"
  local src_stamp
  src_stamp=$(cd "$fe" && find src index.html vite.config.ts package-lock.json -type f -print0 2>/dev/null | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
  if [[ ! -f "$fe/dist/.built-$src_stamp" ]]; then
    say "building the frontend"
    (cd "$fe" && npm run -s build) >"$LOG/vite.log" 2>&1 || die "frontend build failed (see $LOG/vite.log)"
    touch "$fe/dist/.built-$src_stamp"
  fi
}

ensure_sign_on_servers() {
  # The sign-on tests start their own directory and OpenID provider (backend/accounts/sso/tests/servers.py):
  # Debian's slapd with ldap-utils, and panva's oidc-provider under node (deploy/oidc-dev, pinned by its lock file).
  command -v ldapadd >/dev/null && [[ -x /usr/sbin/slapd ]] || apt_install slapd ldap-utils
  npm_ci_once "$ROOT/deploy/oidc-dev" npm-oidc-dev "the local OpenID provider (deploy/oidc-dev/package-lock.json)"
}

migrate() {
  say "migrating PostgreSQL and ClickHouse"
  "$PY" "$ROOT/manage.py" migrate --noinput -v 0
  "$PY" "$ROOT/manage.py" ch_migrate
}

ensure_python
ensure_frontend
ensure_sign_on_servers
"$ROOT/deploy/stack.sh" up
if [[ "${1:-}" != "--no-migrate" ]]; then
  migrate
fi
# Static files (Django admin + the built bundle) are served by whitenoise from STATIC_ROOT.
"$PY" "$ROOT/manage.py" collectstatic --noinput -v 0
