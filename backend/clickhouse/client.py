"""One door to ClickHouse.

Values are always bound as `%(name)s` parameters, never formatted into SQL; identifiers come only from the
table modules' constants. Each thread gets its own connection (clickhouse_driver's Client is not thread-safe),
created lazily so that importing this module needs no server.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn

from clickhouse_driver import Client
from clickhouse_driver.errors import Error as DriverError
from django.conf import settings

from backend.clickhouse import engines, native
from backend.fastpaths import driver_internals

log = logging.getLogger(__name__)

_local = threading.local()

# Settings sent with every query. The driver writes bound values into the query text (escaped), so a filter by
# case names carries them all: up to TANKODROM_CASES_MAX names of TANKODROM_LABEL_MAX_CHARS characters (4 bytes
# each at most), twice in some queries. ClickHouse's default max_query_size (256 KiB) refused such a query; this
# bound holds the defaults (1000 x 200 characters) with room to spare.
_QUERY_SETTINGS: dict[str, Any] = {"max_query_size": 4 * 1024 * 1024}
# On a cluster, an INSERT into a Distributed table returns once the shards it touched have stored their rows
# (each on one healthy replica; the others copy it: `internal_replication` in the servers' <remote_servers>).
# Without it the receiving node would queue them on its own disk and answer at once: a write to a shard that is
# down would be accepted and then depend on that node, instead of being refused (503) and retried by its sender.
#
# insert_deduplicate 0: a Replicated table silently drops a block identical to one of the last 100 it stored
# (checked on 18.16 through a Distributed table). Our retries rely on the opposite: an upload that failed midway
# deletes its rows and inserts them again (the same blocks), which deduplication would turn into a loss once
# the deletion lands; a second or a monitoring point sent twice is collapsed by ReplacingMergeTree anyway, as on
# one server.
_CLUSTER_SETTINGS: dict[str, Any] = {"insert_distributed_sync": 1, "insert_deduplicate": 0}

# Server error codes that mean "not available now", not "bad query": answered with 503 and retried.
UNAVAILABLE_CODES = frozenset(
    {
        209,  # SOCKET_TIMEOUT
        210,  # NETWORK_ERROR
        32,  # ATTEMPT_TO_READ_AFTER_EOF
        159,  # TIMEOUT_EXCEEDED (a distributed DDL still waiting for a node)
        225,  # NO_ZOOKEEPER
        242,  # TABLE_IS_READ_ONLY (a replica that lost ZooKeeper)
        279,  # ALL_CONNECTION_TRIES_FAILED (every replica of a shard down)
        319,  # UNKNOWN_STATUS_OF_INSERT
        999,  # KEEPER_EXCEPTION
    }
)


# The driver's errors for a conversation that broke although the server is there (an answer it cannot read):
# a 500 logged with its cause, never "temporarily unavailable" (retrying the same query breaks it again).
PROTOCOL_CODES = frozenset(
    {
        100,  # UNKNOWN_PACKET_FROM_SERVER
        102,  # UNEXPECTED_PACKET_FROM_SERVER
        40,  # CHECKSUM_DOESNT_MATCH
        131,  # TOO_LARGE_STRING_SIZE
    }
)


class ClickHouseUnavailable(RuntimeError):
    """The server did not answer (down, refusing, timing out). Callers map this to 503."""


class ClickHouseProtocolError(RuntimeError):
    """The server answers but this query's conversation broke (unknown packet, connection closed mid-answer while
    the server still accepts connections). Logged with its cause; callers answer 500."""


def _config() -> dict[str, Any]:
    cfg: dict[str, Any] = dict(settings.CLICKHOUSE)
    return cfg


def database() -> str:
    return str(_config()["database"])


def _new_client(with_database: bool = True) -> Client:
    cfg = _config()
    return Client(
        host=cfg["host"],
        port=int(cfg["port"]),
        user=cfg["user"],
        password=cfg["password"],
        database=cfg["database"] if with_database else "default",
        alt_hosts=cfg.get("alt_hosts") or None,
        connect_timeout=3,
        send_receive_timeout=300,
        sync_request_timeout=5,
        settings={"use_numpy": False},
    )


def _client() -> Client:
    key = repr(sorted(_config().items()))
    cached: tuple[str, Client] | None = getattr(_local, "client", None)
    if cached is None or cached[0] != key:
        if cached is not None:
            cached[1].disconnect()
        cached = (key, _new_client())
        _local.client = cached
    return cached[1]


def reset_connections() -> None:
    """Drop this thread's connection, e.g. after a fork or a settings change in tests."""
    cached: tuple[str, Client] | None = getattr(_local, "client", None)
    if cached is not None:
        cached[1].disconnect()
    _local.client = None


@contextmanager
def _translated_errors(tag: str) -> Iterator[None]:
    try:
        yield
    except OSError as exc:
        reset_connections()
        raise ClickHouseUnavailable(f"ClickHouse is unreachable ({tag}): {exc}") from exc
    except EOFError as exc:
        # The server closed the connection mid-query: down (503, retried) or it refused what we sent (e.g. it
        # logged "Unknown packet"): then it still accepts a new connection, and this is a protocol error.
        _broken(tag, exc)
    except DriverError as exc:
        # Network errors come wrapped in the driver's own classes; anything with a server code is a real SQL error.
        code = getattr(exc, "code", None)
        if code in PROTOCOL_CODES:
            reset_connections()
            _protocol_error(tag, exc)
        if code is None:
            _broken(tag, exc)
        if code in UNAVAILABLE_CODES or _is_remote_unavailable(exc):
            reset_connections()
            raise ClickHouseUnavailable(f"ClickHouse is unreachable ({tag}): {exc}") from exc
        raise


def _broken(tag: str, exc: BaseException) -> NoReturn:
    """A connection that broke mid-query: 503 if its server no longer answers, a protocol error if it does."""
    cached: tuple[str, Client] | None = getattr(_local, "client", None)
    where = cached[1].connection if cached is not None else None
    host = getattr(where, "host", None)
    port = getattr(where, "port", None)
    reset_connections()
    if not _answers(host, port):
        raise ClickHouseUnavailable(f"ClickHouse is unreachable ({tag}): {exc}") from exc
    _protocol_error(tag, exc)


def _protocol_error(tag: str, exc: BaseException) -> NoReturn:
    log.error("ClickHouse protocol error (%s): %r", tag, exc, exc_info=exc)
    raise ClickHouseProtocolError(f"ClickHouse protocol error ({tag}): {exc!r}") from exc


def _answers(host: str | None, port: int | None) -> bool:
    """Whether the server that broke the conversation (that host, no failover) accepts a new query now."""
    cfg = _config()
    probe = Client(
        host=host or cfg["host"],
        port=int(port or cfg["port"]),
        user=cfg["user"],
        password=cfg["password"],
        database="default",
        connect_timeout=3,
        send_receive_timeout=5,
        sync_request_timeout=5,
    )
    try:
        probe.execute("SELECT 1")
        return True
    except Exception:  # any failure means "does not answer"
        return False
    finally:
        probe.disconnect()


def _is_remote_unavailable(exc: DriverError) -> bool:
    """A Distributed table's error that only wraps a shard's network failure (it comes with the shard's code)."""
    text = str(getattr(exc, "message", "") or exc)
    return any(f"Code: {code}," in text for code in (209, 210, 279)) and "DB::NetException" in text


def _settings(extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    cluster = _CLUSTER_SETTINGS if _config().get("cluster") else {}
    return {**_QUERY_SETTINGS, **cluster, **(extra or {})}


def execute(
    sql: str,
    params: Mapping[str, Any] | None = None,
    *,
    tag: str,
    settings_: Mapping[str, Any] | None = None,
) -> list[tuple[Any, ...]]:
    """Run one query with bound parameters; `tag` names the caller in logs and in system.query_log."""
    _notify(sql, params)
    started = time.perf_counter()
    query_settings = _settings(settings_)
    with _translated_errors(tag):
        rows: list[tuple[Any, ...]] = _client().execute(sql, params or {}, settings=query_settings, query_id=None)
    log.debug("clickhouse %s %.1f ms", tag, (time.perf_counter() - started) * 1000)
    return rows


def execute_numpy(sql: str, params: Mapping[str, Any] | None = None, *, tag: str) -> list[Any]:
    """Return the result as a list of numpy arrays, one per column (fast path for large reads)."""
    _notify(sql, params)
    conn = _client()
    with driver_internals.numpy_results(conn), _translated_errors(tag):
        columns: list[Any] = conn.execute(sql, params or {}, columnar=True, settings=_settings({"use_numpy": True}))
    return columns


def insert_rows(table: str, column_names: Sequence[str], rows: Sequence[Sequence[Any]], *, tag: str) -> int:
    """Insert row tuples; `table` and `column_names` must come from a table module's constants."""
    if not rows:
        return 0
    sql = f"INSERT INTO {table} ({', '.join(column_names)}) VALUES"
    with _translated_errors(tag):
        _client().execute(sql, list(rows), settings=_settings())
    return len(rows)


def insert_columns(table: str, columns: Mapping[str, Sequence[Any]], *, tag: str, use_numpy: bool = False) -> int:
    """Insert column-major data (one block); `columns` maps constant column names to equal-length sequences."""
    names = list(columns)
    if not names:
        return 0
    count = len(columns[names[0]])
    if count == 0:
        return 0
    sql = f"INSERT INTO {table} ({', '.join(names)}) VALUES"
    with _translated_errors(tag):
        _client().execute(
            sql,
            [columns[name] for name in names],
            columnar=True,
            settings=_settings({"use_numpy": use_numpy}),
        )
    return count


class NativeInsert:
    """One `INSERT … VALUES` kept open on this thread's connection, fed block by block (see `native_insert`)."""

    def __init__(
        self, conn: Client, table: str, column_names: Sequence[str], tag: str, settings_: Mapping[str, Any] | None
    ) -> None:
        self._conn = conn
        self._tag = tag
        self._names = list(column_names)
        self.rows = 0
        with _translated_errors(tag):
            sql = f"INSERT INTO {table} ({', '.join(self._names)}) VALUES"
            self._types = driver_internals.open_insert(conn, sql, _settings(settings_))

    def send(self, columns: Mapping[str, native.ColumnData]) -> None:
        """Send one block: every column of the insert, all of the same length."""
        lengths = {len(columns[name]) for name in self._names}
        if len(lengths) != 1:
            raise ValueError(f"columns of different lengths: {sorted(lengths)}")
        (count,) = lengths
        if count == 0:
            return
        with _translated_errors(self._tag):
            payloads = (native.encode_column(self._types[name], columns[name]) for name in self._names)
            driver_internals.send_block(self._conn, self._names, self._types, count, payloads)
        self.rows += count

    def finish(self) -> int:
        with _translated_errors(self._tag):
            driver_internals.end_insert(self._conn)
        return self.rows


@contextmanager
def native_insert(
    table: str, column_names: Sequence[str], *, tag: str, settings_: Mapping[str, Any] | None = None
) -> Iterator[NativeInsert]:
    """Stream many blocks into one INSERT; `table` and `column_names` must come from a table module's constants.

    One INSERT instead of one per batch: the server squashes consecutive blocks into parts of about a million
    rows (fewer parts to merge later), and blocks that follow each other in sort-key order stay sorted. If the
    body raises, the connection is dropped and the INSERT ends there, but blocks already sent may be stored
    (18.16 writes what it has squashed so far): callers must keep such rows invisible until they are complete
    (uploads: rows of an upload that is not active are never read, and a failed upload's rows are deleted).
    """
    insert = NativeInsert(_client(), table, column_names, tag, settings_)
    try:
        yield insert
        insert.finish()
    except BaseException:
        reset_connections()
        raise


def _outside_database(sql: str, tag: str) -> list[Any]:
    """Run `sql` on a connection of its own that selects no database (the configured one may not exist yet)."""
    client = _new_client(with_database=False)
    try:
        with _translated_errors(tag):
            rows: list[Any] = client.execute(sql)
        return rows
    finally:
        client.disconnect()


def ping() -> str:
    """Return the server version; raise ClickHouseUnavailable if it does not answer."""
    return str(_outside_database("SELECT version()", "ping")[0][0])


def database_ddl(statement: str, *, tag: str) -> None:
    """`<statement> <the configured database>`, ON CLUSTER on a cluster: `statement` a constant such as
    `CREATE DATABASE IF NOT EXISTS`. The name is an identifier from settings, not user input (ClickHouse cannot
    bind one)."""
    _outside_database(f"{statement} {_quote_identifier(database())}{engines.on_cluster(engines.current())}", tag)


def ensure_database() -> None:
    """Create the configured database (migrations need it to exist); idempotent."""
    database_ddl("CREATE DATABASE IF NOT EXISTS", tag="ensure_database")


def mutate(table: str, command: str, params: Mapping[str, Any] | None = None, *, tag: str) -> None:
    """`ALTER TABLE <table> <command>` (DELETE WHERE …, UPDATE …): a mutation of the rows' stored parts.

    On a cluster it goes to the local tables ON CLUSTER (engines.mutation_target). If a node is down, the DDL
    query stops waiting for it after `distributed_ddl_task_timeout` with code 159: by then the live replica of
    each shard has run it (ZooKeeper hands it to the stopped one when it returns), so that is not an error here.
    A whole shard down fails earlier than that, on its own code. `table` and `command` come from constants.
    """
    sql = f"ALTER TABLE {engines.mutation_target(table)} {command}"
    if not _config().get("cluster"):
        execute(sql, params, tag=tag)
        return
    try:
        execute(sql, params, tag=tag, settings_={"distributed_ddl_task_timeout": MUTATION_DDL_WAIT_S})
    except ClickHouseUnavailable as exc:
        cause = exc.__cause__
        if getattr(cause, "code", None) != 159 or not _every_shard_answers():
            raise
        log.warning("mutation %s: queued for the nodes that are down (%s)", tag, str(cause).splitlines()[1][:300])


MUTATION_DDL_WAIT_S = 10


def _every_shard_answers() -> bool:
    """Whether each shard of the cluster has a replica that answers (system.clusters lists them)."""
    try:
        rows = execute(
            "SELECT count() FROM cluster(%(cluster)s, system, one)",
            {"cluster": str(_config()["cluster"])},
            tag="cluster.shards_answer",
        )
    except ClickHouseUnavailable:
        return False
    shards = execute(
        "SELECT uniqExact(shard_num) FROM system.clusters WHERE cluster = %(cluster)s",
        {"cluster": str(_config()["cluster"])},
        tag="cluster.shards",
    )
    return bool(rows) and int(rows[0][0]) == int(shards[0][0])


def pending_mutations(table: str) -> int:
    """Mutations of `table`'s rows not finished yet: on a cluster, on any replica that answers."""
    params = {"db": database(), "table": engines.local_name(table, engines.current())}
    cluster = str(_config().get("cluster") or "")
    if not cluster:
        rows = execute(
            "SELECT count() FROM system.mutations WHERE database = %(db)s AND table = %(table)s AND is_done = 0",
            params,
            tag="mutations.pending",
        )
        return int(rows[0][0]) if rows else 0
    # Every replica (a reader may reach any of them), each as its own shard of a remote() call: 18.16 has no
    # clusterAllReplicas. A replica that is down is skipped: it applies the mutation before its parts are read.
    replicas = execute(
        "SELECT host_address, port FROM system.clusters WHERE cluster = %(cluster)s",
        {"cluster": cluster},
        tag="cluster.replicas",
    )
    addresses = ",".join(f"{host}:{int(port)}" for host, port in replicas)
    # remote() logs in as `default` without a password unless told: as the app's user.
    cfg = _config()
    rows = execute(
        "SELECT count() FROM remote(%(addresses)s, system, mutations, %(user)s, %(password)s) "
        "WHERE database = %(db)s AND table = %(table)s AND is_done = 0",
        {**params, "addresses": addresses, "user": str(cfg["user"]), "password": str(cfg["password"])},
        tag="mutations.pending",
        settings_={"skip_unavailable_shards": 1},
    )
    return int(rows[0][0]) if rows else 0


def _quote_identifier(name: str) -> str:
    if not name.replace("_", "").isalnum():
        raise ValueError(f"bad ClickHouse identifier {name!r}")
    return f"`{name}`"


# Observers see every query template and its parameters. The test suite uses this to replay the queries it ran on
# ClickHouse 18.16 against a current ClickHouse (chDB), proving the SQL runs on both.
QueryObserver = Callable[[str, Mapping[str, Any]], None]
_observers: list[QueryObserver] = []


def add_observer(observer: QueryObserver) -> None:
    _observers.append(observer)


def _notify(sql: str, params: Mapping[str, Any] | None) -> None:
    for observer in _observers:
        observer(sql, params or {})
