# The two commands of the README: `make run` serves, `make test` checks everything. See deploy/*.sh.
SHELL := /bin/bash
.DEFAULT_GOAL := help

.PHONY: help run up down test test-cluster cluster-up cluster-down setup lint typecheck pytest frontend-check e2e compose-check bench fmt proxy-up proxy-down

help:
	@echo "make run    set up everything and serve http://127.0.0.1:8000 in the foreground (Ctrl-C stops)"
	@echo "make up     the same in the background; make down stops it"
	@echo "make test   set up, then lint, types, Python tests on the real services, frontend and browser tests"
	@echo "make test-cluster   the Python tests against a local ClickHouse cluster (ZooKeeper, 2 shards x 2 replicas)"

run:
	@deploy/app.sh run

up:
	@deploy/app.sh up

down:
	@deploy/app.sh down

setup:
	@deploy/setup.sh

# nginx in front of a running app (make up starts it too): static files, micro-cached shared answers.
proxy-up:
	@deploy/proxy.sh up

proxy-down:
	@deploy/proxy.sh down

test:
	@deploy/test.sh

# The ClickHouse cluster shape (docs/scaling.md): `make test-cluster` starts it, runs the cluster subset, stops it;
# `make test-cluster TESTS=all` runs the whole suite on it.
test-cluster:
	@deploy/test-cluster.sh $(TESTS)

cluster-up:
	@deploy/cluster.sh up

cluster-down:
	@deploy/cluster.sh down

# Single stages, for working on one part (they assume `make setup` has run).
lint:
	@.venv/bin/ruff check . && .venv/bin/ruff format --check .

fmt:
	@.venv/bin/ruff format . && .venv/bin/ruff check --fix .

typecheck:
	@.venv/bin/mypy backend analytics tankodrom_cli

pytest:
	@.venv/bin/pytest -q

frontend-check:
	@cd frontend && npm run -s typecheck && npm run -s lint && npm run -s test

e2e:
	@deploy/e2e.sh

compose-check:
	@POSTGRES_PASSWORD=validate DJANGO_SECRET_KEY=validate CLICKHOUSE_PASSWORD=validate docker-compose -f docker-compose.yml config -q
	@POSTGRES_PASSWORD=validate DJANGO_SECRET_KEY=validate CLICKHOUSE_PASSWORD=validate docker-compose -f deploy/docker-compose.cluster.yml config -q

bench:
	@echo "benchmarks are run one by one, or all of them before/after a change: see bench/README.md"
