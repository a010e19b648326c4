"""One schema, two shapes: how a table is created on one ClickHouse server, and on a cluster.

`settings.CLICKHOUSE["cluster"]` (env `CLICKHOUSE_CLUSTER`) chooses. Empty: one server, and every statement here
is the single-server DDL the project always ran (plain MergeTree / ReplacingMergeTree, no ON CLUSTER).
Set to a cluster of the servers' `<remote_servers>`, each table becomes, as PostHog and Snuba lay it out:
  - `<name>_local` on every node, created ON CLUSTER, a Replicated*MergeTree whose ZooKeeper path holds the shard
    macro, the database and the table (`/clickhouse/tables/{shard}/<db>.<name>_local`) and whose replica is the
    node's `{replica}` macro: the replicas of a shard hold the same rows;
  - `<name>` in front of it on every node, a Distributed table sharded by `test_id`: every read and INSERT of the
    application names `<name>` as before and reaches all shards through it.
Mutations (ALTER … DELETE/UPDATE) act on stored parts, which only the local tables have: they go
to `<name>_local` ON CLUSTER (`mutation_target`); a replicated mutation is run once per shard and copied to the
other replicas through ZooKeeper.

Why `test_id` is the sharding key (measured: docs/scaling.md, "Sharding key"): every read names one test, and
with all of a test's rows on one shard
  - FINAL, which collapses duplicates within one server only, sees every copy of a key: a second the tank pushed
    twice counts once through the Distributed table as on one server;
  - re-aggregating a late second from `samples`, and the mutations that delete an upload's rows, touch one shard;
  - exact quantiles stay exact either way (quantileExact's state carries every value to the initiator), but a
    test spread over shards sends those values over the network for no saving in the 2-shard case.
Sequential ids alternate between shards (`test_id % shards`), so tests spread evenly. What it gives up: a single
test's query runs on one shard's cores, not all of them (the spread-out alternative, measured alongside).
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

LOCAL_SUFFIX = "_local"
SHARDING_KEY = "test_id"


@dataclass(frozen=True)
class Shape:
    """Where the schema lives: `cluster` '' is one server."""

    cluster: str = ""
    database: str = "tankodrom"

    @property
    def is_cluster(self) -> bool:
        return bool(self.cluster)


def current() -> Shape:
    cfg = settings.CLICKHOUSE
    return Shape(cluster=str(cfg.get("cluster", "") or ""), database=str(cfg["database"]))


@dataclass(frozen=True)
class TableSpec:
    """A MergeTree-family table: what a table module declares once for both shapes.

    `engine` is `MergeTree` or `ReplacingMergeTree` (with `version_column`); `keys` is what follows the engine
    (PARTITION BY, ORDER BY). `everywhere`: on a cluster, a full copy on every node instead of a share per shard
    (small tables every node reads locally, e.g. the migrations' state).
    """

    name: str
    columns: str
    engine: str
    keys: str
    version_column: str = ""
    everywhere: bool = False


def on_cluster(shape: Shape) -> str:
    """The ON CLUSTER clause of a DDL statement: '' on one server."""
    return f" ON CLUSTER {_identifier(shape.cluster)}" if shape.is_cluster else ""


def local_name(name: str, shape: Shape) -> str:
    """The table that stores the rows: `name` on one server, its Replicated `name_local` on a cluster."""
    return f"{name}{LOCAL_SUFFIX}" if shape.is_cluster else name


def qualified(name: str, shape: Shape) -> str:
    """`name` as DDL must spell it: with its database on a cluster, where an ON CLUSTER statement runs on the other
    nodes in their default database, not in the one the sending connection uses."""
    return f"{_identifier(shape.database)}.{name}" if shape.is_cluster else name


def engine(spec: TableSpec, shape: Shape) -> str:
    """The ENGINE clause of the table that stores the rows. The one place engines are built."""
    version = [spec.version_column] if spec.version_column else []
    if not shape.is_cluster:
        return f"{spec.engine}({', '.join(version)})"
    table = local_name(spec.name, shape) if not spec.everywhere else spec.name
    # Unsharded tables share one path and need a replica name unique across the whole cluster.
    shard, replica = ("all", "{shard}-{replica}") if spec.everywhere else ("{shard}", "{replica}")
    path = f"/clickhouse/tables/{shard}/{_identifier(shape.database)}.{table}"
    args = ", ".join([f"'{path}'", f"'{replica}'", *version])
    return f"Replicated{spec.engine}({args})"


def create(spec: TableSpec, shape: Shape) -> list[str]:
    """Statements creating the table (IF NOT EXISTS: each is safe to run twice)."""
    if not shape.is_cluster or spec.everywhere:
        return [_create_stored(spec.name, spec, shape)]
    local = local_name(spec.name, shape)
    return [
        _create_stored(local, spec, shape),
        f"CREATE TABLE IF NOT EXISTS {qualified(spec.name, shape)}{on_cluster(shape)} AS {qualified(local, shape)} "
        f"ENGINE = Distributed({_identifier(shape.cluster)}, {_identifier(shape.database)}, {local}, {SHARDING_KEY})",
    ]


def drop(name: str, shape: Shape) -> list[str]:
    """Statements dropping a table created by `create` (IF EXISTS)."""
    names = [name, local_name(name, shape)] if shape.is_cluster else [name]
    return [f"DROP TABLE IF EXISTS {qualified(n, shape)}{on_cluster(shape)}" for n in names]


def mutation_target(name: str, shape: Shape | None = None) -> str:
    """What follows `ALTER TABLE ` in a mutation of `name`'s rows: its local table, ON CLUSTER on a cluster."""
    shape = shape or current()
    return f"{qualified(local_name(name, shape), shape)}{on_cluster(shape)}"


def _create_stored(table: str, spec: TableSpec, shape: Shape) -> str:
    return (
        f"CREATE TABLE IF NOT EXISTS {qualified(table, shape)}{on_cluster(shape)} ({spec.columns}\n) "
        f"ENGINE = {engine(spec, shape)}\n{spec.keys.strip()}\n"
    )


def _identifier(name: str) -> str:
    if not name or not name.replace("_", "").isalnum():
        raise ValueError(f"bad ClickHouse identifier {name!r}")
    return name
