#!/usr/bin/env bash
# `make test-cluster`: start the local ClickHouse cluster (deploy/cluster.sh: ZooKeeper + 2 shards x 2 replicas of
# 18.16), migrate the test database in its cluster shape, run the Python tests against it, stop the cluster.
#   deploy/test-cluster.sh            the cluster subset below (what `make test` runs, ~3 min)
#   deploy/test-cluster.sh all        the whole suite (several times the single server's: four servers share the cores)
#   deploy/test-cluster.sh PATHS...   chosen tests
# The subset: every table (schema test: live columns = declared, on the Distributed tables), every migration
# (applied ON CLUSTER, twice), every query module (reports: series, summary, monitoring; compare; diagnosis;
# purge), both ingest paths (the tank stream's flush, phout uploads with late seconds re-aggregated through a
# mutation, superseded and failed uploads deleted), the host-affine upload queues with two workers, and the
# cluster's own tests (sharding, FINAL across shards, mutations, faults). The rest of the suite is pure code,
# Django/PostgreSQL/Redis behaviour that the ClickHouse shape does not change, or starts a single ClickHouse of
# its own (backend/tankapi/tests/test_clickhouse_fault.py: the cluster's fault tests replace it here).
# backend/uploads/tests/test_follow.py is left out: it asserts when a follow starts from the transfer's rate
# (32 MB/s), which four servers on one machine do not hold; a follow stores rows as the ingestion does.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

SUBSET=(
  backend/core/tests/test_clickhouse_schema.py
  backend/core/tests/test_native_insert.py
  backend/core/tests/test_cluster.py
  backend/core/tests/test_cluster_faults.py
  backend/core/tests/test_host_queues.py
  backend/uploads/tests/test_aggregate_insert.py
  backend/uploads/tests/test_expire.py
  backend/uploads/tests/test_ingest.py
  backend/uploads/tests/test_upload_api.py
  backend/uploads/tests/test_upload_socket.py
  backend/uploads/tests/test_upload_status.py
  backend/tankapi/tests/test_push.py
  backend/tankapi/tests/test_protocol.py
  backend/reports/tests/test_report_api.py
  backend/reports/tests/test_summary.py
  backend/reports/tests/test_golden.py
  backend/compare/tests
  backend/diagnosis/tests/test_api.py
  backend/diagnosis/tests/test_trend.py
  backend/sharing/tests/test_summary.py
  backend/accounts/tests/test_delete_test.py
)
case "${1:-}" in
  "") TESTS=("${SUBSET[@]}") ;;
  all) TESTS=(backend analytics) ;;
  *) TESTS=("$@") ;;
esac

"$ROOT/deploy/cluster.sh" up
trap '"$ROOT/deploy/cluster.sh" down' EXIT
eval "$("$ROOT/deploy/cluster.sh" env)"
# Its own test database names, so that a single-server run of the same checkout never meets these tables.
export CLICKHOUSE_TEST_DATABASE="${CLICKHOUSE_TEST_DATABASE:-tankodrom_test}_cluster"
"$ROOT/.venv/bin/pytest" -q -p no:cacheprovider "${TESTS[@]}"
