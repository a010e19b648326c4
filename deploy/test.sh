#!/usr/bin/env bash
# `make test`: the same set-up as `make run` without serving, then every check. Exits non-zero on any failure.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

"$ROOT/deploy/setup.sh" --no-migrate   # the test suite migrates its own databases

stage() { say "── $1"; }

stage "ruff (lint + format)"
.venv/bin/ruff check .
.venv/bin/ruff format --check .

stage "mypy (strict)"
.venv/bin/mypy backend analytics tankodrom_cli

stage "docker-compose.yml and deploy/docker-compose.cluster.yml (validated offline)"
command -v docker-compose >/dev/null || apt_install docker-compose
# Mandatory production values are checked for presence only; any value validates the file.
POSTGRES_PASSWORD=validate DJANGO_SECRET_KEY=validate CLICKHOUSE_PASSWORD=validate docker-compose -f docker-compose.yml config -q
POSTGRES_PASSWORD=validate DJANGO_SECRET_KEY=validate CLICKHOUSE_PASSWORD=validate docker-compose -f deploy/docker-compose.cluster.yml config -q

stage "frontend: tsc --strict, eslint, vitest"
(cd frontend && npm run -s typecheck && npm run -s lint && npm run -s test)

stage "Python tests on the real services"
.venv/bin/pytest -q -p no:cacheprovider

stage "Python tests on a local ClickHouse cluster (ZooKeeper, 2 shards x 2 replicas; the subset in deploy/test-cluster.sh)"
"$ROOT/deploy/test-cluster.sh"

if [[ -x "$ROOT/deploy/e2e.sh" ]]; then
  stage "browser tests (headless Chromium against the running stack)"
  "$ROOT/deploy/e2e.sh"
fi

say "all checks passed"
