"""One schema, two shapes (backend/clickhouse/engines.py).

The DDL of both shapes is checked everywhere (pure). The behaviour of the cluster shape is checked when the suite
runs against a cluster (`make test-cluster`: deploy/cluster.sh's 2 shards x 2 replicas with ZooKeeper): where a
test's rows live, FINAL through the Distributed table, replication, mutations, and faults (a replica of each
shard down, a whole shard down), with nodes stopped and started by deploy/cluster.sh.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest

from backend.clickhouse import client, engines, migrate
from backend.clickhouse.migrations import m0001_initial, m0002_narrow_samples, m0003_narrow_sample_ids
from backend.clickhouse.tables import monitoring, samples, schema_migrations, second_aggregates
from backend.testing import ROOT, cluster_nodes, node_client

CLUSTER = engines.Shape(cluster="prod", database="tk")
SINGLE = engines.Shape(database="tk")


# ── The cluster stage of `make test` (pure) ─────────────────────────────────────────────────────────────────────
def test_the_cluster_subset_names_only_tests_that_exist() -> None:
    """A renamed test file would otherwise fail `make test` only in its last stage, after the whole suite."""
    script = (ROOT / "deploy" / "test-cluster.sh").read_text()
    subset = script.split("SUBSET=(", 1)[1].split(")", 1)[0].split()
    assert subset, "no SUBSET=( ... ) list in deploy/test-cluster.sh"
    assert [path for path in subset if not (ROOT / path).exists()] == []


# ── DDL of both shapes (pure) ───────────────────────────────────────────────────────────────────────────────
def test_one_server_keeps_todays_ddl() -> None:
    (statement,) = engines.create(second_aggregates.SPEC, SINGLE)
    assert statement == second_aggregates.CREATE_SQL
    assert "ON CLUSTER" not in statement and "Replicated" not in statement
    assert "ENGINE = ReplacingMergeTree(received_at_us)" in statement
    assert engines.mutation_target("samples", SINGLE) == "samples"
    assert m0001_initial.forwards_for(SINGLE) == [
        samples.CREATE_SQL,
        second_aggregates.CREATE_SQL,
        monitoring.CREATE_SQL,
    ]
    assert m0002_narrow_samples.forwards_for(SINGLE) == m0002_narrow_samples.FORWARDS
    assert m0003_narrow_sample_ids.forwards_for(SINGLE) == m0003_narrow_sample_ids.FORWARDS


def test_a_cluster_gets_replicated_local_tables_behind_distributed_ones() -> None:
    local, front = engines.create(second_aggregates.SPEC, CLUSTER)
    assert local.startswith("CREATE TABLE IF NOT EXISTS tk.second_aggregates_local ON CLUSTER prod (")
    assert (
        "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/tk.second_aggregates_local', "
        "'{replica}', received_at_us)" in local
    )
    assert "ORDER BY (test_id, source_id, ts, case)" in local
    assert front == (
        "CREATE TABLE IF NOT EXISTS tk.second_aggregates ON CLUSTER prod AS tk.second_aggregates_local "
        "ENGINE = Distributed(prod, tk, second_aggregates_local, test_id)"
    )
    assert engines.mutation_target("samples", CLUSTER) == "tk.samples_local ON CLUSTER prod"
    assert engines.drop("samples", CLUSTER) == [
        "DROP TABLE IF EXISTS tk.samples ON CLUSTER prod",
        "DROP TABLE IF EXISTS tk.samples_local ON CLUSTER prod",
    ]


def test_the_migrations_state_is_a_full_copy_on_every_node() -> None:
    (statement,) = engines.create(schema_migrations.SPEC, CLUSTER)
    assert "'/clickhouse/tables/all/tk.schema_migrations', '{shard}-{replica}', applied_at" in statement
    assert "Distributed" not in statement


def test_a_cluster_starts_from_the_final_schema() -> None:
    assert m0002_narrow_samples.forwards_for(CLUSTER) == [] == m0003_narrow_sample_ids.forwards_for(CLUSTER)
    (local, _front, *_rest) = m0001_initial.forwards_for(CLUSTER)
    assert "test_id UInt32" in local and "net_code Int16" in local  # what m0002 and m0003 narrow to


def test_every_migration_has_a_cluster_shape() -> None:
    for migration in migrate.discover(CLUSTER):
        for statement in migration.forwards:
            migrate.refuse_single_node_ddl(migration.name, statement)


def test_single_server_ddl_is_refused_on_a_cluster() -> None:
    with pytest.raises(RuntimeError, match="m0099 has no cluster shape"):
        migrate.refuse_single_node_ddl("m0099", "ALTER TABLE samples ADD COLUMN x UInt8")
    migrate.refuse_single_node_ddl("m0099", "SELECT throwIf(count() > 0) FROM samples")


# ── the cluster itself ──────────────────────────────────────────────────────────────────────────────────────
on_cluster = pytest.mark.skipif(
    not engines.current().is_cluster, reason="needs a ClickHouse cluster (make test-cluster)"
)


def _on_node(port: int, sql: str, params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
    node = node_client(port, connect_timeout=2)
    try:
        return list(node.execute(sql, params or {}))
    finally:
        node.disconnect()


def _node_number(port: int) -> int:
    return [p for _s, _r, p in cluster_nodes()].index(port) + 1  # deploy/cluster.sh numbers them in this order


def _cluster_sh(*args: str) -> None:
    subprocess.run([str(ROOT / "deploy" / "cluster.sh"), *args], check=True, capture_output=True, timeout=120)


def _rows(test_id: int, ts: int, resps: int, received_at_us: int) -> list[tuple[Any, ...]]:
    row: list[Any] = [0] * len(second_aggregates.COLUMNS)
    values = {
        "test_id": test_id,
        "source_id": 0,
        "ts": ts,
        "case": "",
        "resps": resps,
        "received_at_us": received_at_us,
    }
    for i, name in enumerate(second_aggregates.COLUMNS):
        if name in values:
            row[i] = values[name]
        elif name.endswith(("_codes", "_counts", "_bins")):
            row[i] = []
        elif name.endswith("_ms") or name == "reqps":
            row[i] = 0.0
    return [tuple(row)]


def _insert(test_id: int, ts: int, resps: int, received_at_us: int = 1) -> None:
    client.insert_rows(
        second_aggregates.NAME,
        second_aggregates.COLUMNS,
        _rows(test_id, ts, resps, received_at_us),
        tag="tests.cluster",
    )


def _sync(port: int) -> None:
    for table in ("samples_local", "second_aggregates_local", "monitoring_local"):
        _on_node(port, f"SYSTEM SYNC REPLICA {table}")


@on_cluster
def test_a_tests_rows_live_on_one_shard_and_on_both_its_replicas(clickhouse: None) -> None:
    for test_id in (10, 11, 12, 13):
        _insert(test_id, 1_700_000_000, 5)
    for _shard, _replica, port in cluster_nodes():
        _sync(port)
    held: dict[int, set[int]] = {}
    for shard, _replica, port in cluster_nodes():
        for (test_id,) in _on_node(port, "SELECT DISTINCT test_id FROM second_aggregates_local"):
            held.setdefault(int(test_id), set()).add(shard)
    assert held == {10: {1}, 11: {2}, 12: {1}, 13: {2}}  # test_id % 2 shards; each on both replicas of its shard
    sql = "SELECT count() FROM second_aggregates_local"
    counts = [int(_on_node(port, sql)[0][0]) for _s, _r, port in cluster_nodes()]
    assert counts == [2, 2, 2, 2]


@on_cluster
def test_a_second_pushed_twice_counts_once_through_the_distributed_table(clickhouse: None) -> None:
    _insert(21, 1_700_000_000, 5, received_at_us=1)
    _insert(21, 1_700_000_000, 7, received_at_us=2)  # the retry, later: the version that wins
    rows = client.execute(
        f"SELECT ts, sum(resps), count() FROM {second_aggregates.NAME} FINAL WHERE test_id = 21 GROUP BY ts",
        tag="tests.cluster.final",
    )
    assert rows == [(1_700_000_000, 7, 1)]


@on_cluster
def test_a_mutation_reaches_every_replica(clickhouse: None) -> None:
    for test_id in (30, 31):
        _insert(test_id, 1_700_000_000, 5)
    client.mutate(second_aggregates.NAME, "DELETE WHERE test_id = %(t)s", {"t": 31}, tag="tests.cluster.delete")
    deadline = time.monotonic() + 30
    while client.pending_mutations(second_aggregates.NAME):
        assert time.monotonic() < deadline, "mutation not done in 30 s"
        time.sleep(0.1)
    for _shard, _replica, port in cluster_nodes():
        _sync(port)
        rows = _on_node(port, "SELECT DISTINCT test_id FROM second_aggregates_local")
        assert 31 not in {int(t) for (t,) in rows}
    assert client.execute(f"SELECT DISTINCT test_id FROM {second_aggregates.NAME}", tag="tests.cluster") == [(30,)]


@pytest.fixture
def restarts_nodes() -> Iterator[list[int]]:
    """Node numbers a test stops; each is started again (and caught up) whatever the test's outcome."""
    stopped: list[int] = []
    yield stopped
    for number in stopped:
        _cluster_sh("start-node", str(number))
    client.reset_connections()


@on_cluster
@pytest.mark.slow
def test_with_a_replica_of_each_shard_down_writes_and_reads_go_on_and_it_catches_up(
    clickhouse: None, restarts_nodes: list[int]
) -> None:
    nodes = cluster_nodes()
    first_replicas = [port for shard, replica, port in nodes if replica == 1]  # the ones INSERTs go to first
    for test_id in (40, 41):
        _insert(test_id, 1_700_000_000, 1)
    for number in [_node_number(port) for port in first_replicas]:
        restarts_nodes.append(number)
        _cluster_sh("stop-node", str(number))
    client.reset_connections()  # the app's node was one of them: it moves to the next of CLICKHOUSE_ALT_HOSTS
    for ts in range(1_700_000_001, 1_700_000_011):
        for test_id in (40, 41):
            _insert(test_id, ts, 1)
    answer = client.execute(
        f"SELECT test_id, count(), sum(resps) FROM {second_aggregates.NAME} FINAL GROUP BY test_id ORDER BY test_id",
        tag="tests.cluster.read",
    )
    assert answer == [(40, 11, 11), (41, 11, 11)]
    for number in list(restarts_nodes):
        _cluster_sh("start-node", str(number))
        restarts_nodes.remove(number)
    for port in first_replicas:
        _sync(port)
        counts = _on_node(port, "SELECT count() FROM second_aggregates_local")
        assert counts == [(11,)]  # what was written while it was down, once


@on_cluster
@pytest.mark.slow
def test_with_a_whole_shard_down_writes_are_refused_with_503_and_resume_after(
    clickhouse: None, restarts_nodes: list[int], owner_api: Any, owner: Any
) -> None:
    from backend.loadtests.models import Test, TestStatus

    test = Test.objects.create(owner=owner, name="shard down", status=TestStatus.READY, has_stream=True)
    shard = 1 + test.pk % 2
    ports = [port for s, _r, port in cluster_nodes() if s == shard]
    for number in [_node_number(port) for port in ports]:
        restarts_nodes.append(number)
        _cluster_sh("stop-node", str(number))
    client.reset_connections()
    with pytest.raises(client.ClickHouseUnavailable):
        _insert(test.pk, 1_700_000_000, 1)
    answer = owner_api.get(f"/api/v1/tests/{test.pk}/tables")
    assert answer.status_code == 503 and "error" in answer.json()
    for number in list(restarts_nodes):
        _cluster_sh("start-node", str(number))
        restarts_nodes.remove(number)
    client.reset_connections()
    _insert(test.pk, 1_700_000_000, 1)
    assert client.execute(
        f"SELECT count() FROM {second_aggregates.NAME} WHERE test_id = %(t)s", {"t": test.pk}, tag="tests.cluster"
    ) == [(1,)]


@on_cluster
def test_a_block_inserted_again_is_stored_again_as_on_one_server(clickhouse: None) -> None:
    """Replicated tables drop a repeated block by default: an upload retried after a failure would lose the rows
    its deletion of the first attempt's rows then removes. The client turns that off (insert_deduplicate=0)."""
    _insert(50, 1_700_000_000, 5)
    _insert(50, 1_700_000_000, 5)
    rows = client.execute(f"SELECT count() FROM {second_aggregates.NAME} WHERE test_id = 50", tag="tests.cluster")
    assert rows == [(2,)]
