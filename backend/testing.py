"""Test support shared by the apps' tests: real processes (a spare ClickHouse server, a Celery worker, the live
ASGI server, a local HTTP server), users with API tokens, the cluster's layout, and the resets between tests (the
ClickHouse database dropped or its tables emptied, the tank push path's caches forgotten).

They live in the package (not in conftest) so that any app's tests and the benchmarks can use them. Django is
imported inside the helpers that need it: benchmarks import this module before Django is set up.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

if TYPE_CHECKING:
    import requests
    from clickhouse_driver import Client as ClickHouseClient
    from django.contrib.auth.models import User
    from rest_framework.test import APIClient

    from analytics.schema.samples import SampleColumns
    from backend.loadtests.models import ApiToken

ROOT = Path(__file__).resolve().parent.parent

# Read queries the suite ran on ClickHouse 18.16, rendered with their values (filled by conftest.py), replayed on a
# current ClickHouse by backend/core/tests/test_current_clickhouse.py.
RECORDED_QUERIES: dict[str, str] = {}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def port_answers(port: int) -> bool:
    """Whether something accepts connections on this local TCP port."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def wait_until_up(
    process: subprocess.Popen[Any], up: Callable[[], bool], timeout_s: float, failure: Callable[[], str], poll_s: float
) -> None:
    """Wait for a server just started until `up()` holds; RuntimeError(failure()) if the process exits first or
    timeout_s passes (failure is called then, so that it may read the process's log)."""
    deadline = time.monotonic() + timeout_s
    while not up():
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(failure())
        time.sleep(poll_s)


def _settings_password() -> str:
    from django.conf import settings

    return str(settings.CLICKHOUSE["password"])


def render_users_config(password: str) -> str:
    """deploy/clickhouse/users.xml with `password` for the app's user (its SHA-256, as deploy/stack.sh renders it)."""
    template = (ROOT / "deploy" / "clickhouse" / "users.xml").read_text()
    return template.replace("@PASSWORD_SHA256_HEX@", hashlib.sha256(password.encode()).hexdigest())


@dataclass
class SpareClickHouse:
    """A clickhouse-server of its own (own port, own data directory) that a test may stop and start at will,
    so that fault tests never touch the shared server. Its users are the project's (deploy/clickhouse/users.xml),
    with the password the app connects with (settings.CLICKHOUSE), so the app pointed at its port just works."""

    base_dir: Path
    tcp_port: int = field(default_factory=free_port)
    http_port: int = field(default_factory=free_port)  # where an HTTP port would be: the config has none
    password: str = field(default_factory=_settings_password)
    process: subprocess.Popen[bytes] | None = None

    def _config(self) -> Path:
        template = (ROOT / "deploy" / "clickhouse" / "config.xml.in").read_text()
        self.base_dir.mkdir(parents=True, exist_ok=True)
        var = self.base_dir / "var"
        for sub in ("clickhouse/data", "clickhouse/tmp", "clickhouse/log", "clickhouse/user_files"):
            (var / sub).mkdir(parents=True, exist_ok=True)
        users = var / "clickhouse" / "users.xml"
        users.write_text(render_users_config(self.password))
        users.chmod(0o600)
        config = var / "clickhouse" / "config.xml"
        config.write_text(template.replace("@VAR@", str(var)).replace("@TCP_PORT@", str(self.tcp_port)))
        return config

    def start(self, timeout_s: float = 60) -> None:
        if self.process is not None and self.process.poll() is None:
            return
        config = self._config()
        log_dir = config.parent / "log"
        with open(log_dir / "stdout.log", "ab") as log:  # the child keeps its own descriptor
            self.process = subprocess.Popen(
                ["clickhouse-server", f"--config-file={config}"],
                cwd=self.base_dir,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        wait_until_up(
            self.process,
            lambda: port_answers(self.tcp_port),
            timeout_s,
            lambda: f"spare ClickHouse on port {self.tcp_port} did not start; see {log_dir}",
            poll_s=0.2,
        )

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None

    def discard(self) -> None:
        """Kill it at once: its data is thrown away next (a clean stop of 18.16 waits ~10 s for idle connections)."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


@contextlib.contextmanager
def serving_spare_clickhouse(settings: Any, name: str, database: str) -> Iterator[SpareClickHouse]:
    """A spare ClickHouse (data under VAR_DIR/<name>-<pid>) that `settings` (pytest-django's fixture) points the
    app at, its database `database` migrated; stopped and removed on exit."""
    from django.conf import settings as django_settings

    from backend.clickhouse import client, migrate

    base = Path(django_settings.VAR_DIR) / f"{name}-{os.getpid()}"
    shutil.rmtree(base, ignore_errors=True)
    server = SpareClickHouse(base_dir=base)
    server.start()
    settings.CLICKHOUSE = {**django_settings.CLICKHOUSE, "port": server.tcp_port, "database": database}
    client.reset_connections()
    migrate.apply_all()
    try:
        yield server
    finally:
        server.discard()
        client.reset_connections()
        shutil.rmtree(base, ignore_errors=True)


def node_client(port: int, *, host: str = "127.0.0.1", **options: Any) -> ClickHouseClient:
    """A connection to the one ClickHouse server on `host`:`port` (a node of the local cluster), in the test
    database, as the app's user."""
    from clickhouse_driver import Client
    from django.conf import settings

    from backend.clickhouse import client

    cfg = settings.CLICKHOUSE
    return Client(host, port=port, user=cfg["user"], password=cfg["password"], database=client.database(), **options)


def cluster_nodes() -> list[tuple[int, int, int]]:
    """(shard, replica, port) of every node of the ClickHouse cluster the suite runs on, from its layout."""
    from backend.clickhouse import client, engines

    rows = client.execute(
        "SELECT shard_num, replica_num, port FROM system.clusters "
        "WHERE cluster = %(c)s ORDER BY shard_num, replica_num",
        {"c": engines.current().cluster},
        tag="tests.cluster.nodes",
    )
    return [(int(s), int(r), int(p)) for s, r, p in rows]


# ── ClickHouse: a clean slate ───────────────────────────────────────────────────────────────────────────────
def drop_database() -> None:
    """Drop the configured ClickHouse database: the suite's (and a benchmark's) clean slate."""
    from backend.clickhouse import client

    client.database_ddl("DROP DATABASE IF EXISTS", tag="tests.drop_database")
    client.reset_connections()


TRUNCATE_WAIT_S = 60
# Not now, later: LEADERSHIP_CHANGED (a restarted replica electing its shard's leader), TABLE_IS_READ_ONLY.
_NOT_NOW = frozenset({292, 242})


def truncate(table: str) -> None:
    """Empty `table` (the suite does, between tests).

    On a cluster, not with TRUNCATE: on 18.16 a TRUNCATE of a Replicated table holds the table's lock while it
    waits for every replica to drop the parts, and a replica that is still fetching a part from this one waits for
    that lock: both wait forever (seen here after the fault tests, and with TRUNCATE … ON CLUSTER at once). So each
    partition is dropped on one replica of each shard without waiting (replication_alter_partitions_sync 0), and
    then every replica is polled until it is empty.
    """
    from backend.clickhouse import client, engines

    shape = engines.current()
    local = engines.local_name(table, shape)
    exists = client.execute(
        "SELECT count() FROM system.tables WHERE database = %(db)s AND name = %(name)s",
        {"db": client.database(), "name": local},
        tag="truncate.exists",
    )
    if not shape.is_cluster or not exists[0][0]:  # one server, or a test's scratch table (on this node only)
        client.execute(f"TRUNCATE TABLE {table}", tag="truncate")
        return
    replicas = client.execute(
        "SELECT shard_num, host_address, port FROM system.clusters "
        "WHERE cluster = %(c)s ORDER BY shard_num, replica_num",
        {"c": shape.cluster},
        tag="cluster.replicas",
    )
    deadline = time.monotonic() + TRUNCATE_WAIT_S
    pending = {int(shard) for shard, _host, _port in replicas}
    while pending:
        for shard, host, port in replicas:
            if shard in pending and _drop_partitions_on(str(host), int(port), local):
                pending.discard(shard)
        if pending:
            if time.monotonic() > deadline:
                raise client.ClickHouseUnavailable(f"could not truncate {table} on shards {sorted(pending)}")
            time.sleep(0.5)
    for _shard, host, port in replicas:
        while _rows_on(str(host), int(port), local) and time.monotonic() < deadline:
            time.sleep(0.1)  # a replica that is down (None) catches up when it returns


def _not_now(exc: BaseException) -> bool:
    """A node that is down, or not ready (electing, read-only): asked again later."""
    from backend.clickhouse import client

    code = getattr(exc, "code", None)
    return isinstance(exc, OSError | EOFError) or code in client.UNAVAILABLE_CODES or code in _NOT_NOW


def _drop_partitions_on(host: str, port: int, table: str) -> bool:
    """Drop every partition of `table` on one node; False if it is down, not ready (read-only, electing) or not its
    shard's leader."""
    from backend.clickhouse import client

    node = node_client(port, host=host, connect_timeout=2)
    try:
        # Every partition the shard ever allocated blocks in (as TRUNCATE does), also those of parts this
        # replica has not fetched yet.
        ((path, is_leader),) = node.execute(
            "SELECT zookeeper_path, is_leader FROM system.replicas WHERE database = %(db)s AND table = %(t)s",
            {"db": client.database(), "t": table},
        )
        if not is_leader:
            # 18.16 hands a DROP PARTITION on a follower to the shard's leader over the native protocol as
            # `default` without a password (StorageReplicatedMergeTree::sendRequestToLeaderReplica), which a
            # server with a password refuses: the leader, another replica of this shard, is asked instead.
            # (Current releases make every replica a leader.)
            return False
        partitions = node.execute(
            "SELECT name FROM system.zookeeper WHERE path = %(path)s", {"path": f"{path}/block_numbers"}
        )
        for (partition_id,) in partitions:
            node.execute(
                f"ALTER TABLE {table} DROP PARTITION ID %(p)s",
                {"p": partition_id},
                settings={"replication_alter_partitions_sync": 0},
            )
        return True
    except Exception as exc:
        if _not_now(exc):
            return False
        raise
    finally:
        node.disconnect()


def _rows_on(host: str, port: int, table: str) -> int | None:
    node = node_client(port, host=host, connect_timeout=2)
    try:
        return int(node.execute(f"SELECT count() FROM {table}")[0][0])
    except Exception as exc:
        if _not_now(exc):
            return None
        raise
    finally:
        node.disconnect()


# ── The tank push path's caches ─────────────────────────────────────────────────────────────────────────────
def clear_push_caches() -> None:
    """Forget the tokens and tests the tank push path cached (backend/tankapi/push.py): ids are reused across the
    suite's databases. Its private state, reset under its lock as its writers take it."""
    from backend.tankapi import push

    with push._cache_lock:
        push._token_cache.clear()
        push._test_cache.clear()
        push._tests_used.clear()
        push._next_refresh[0] = 0.0
        push._refresh_handed_over[0] = False


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler for a local stand-in server: `answer()` sends a whole response; nothing is logged."""

    def answer(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextlib.contextmanager
def serving_http(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """`handler` answering on a free local port, from a thread; yields the server's base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@dataclass
class TokenUser:
    """A user with an API token; `raw_token` is what a client sends (`Authorization: Token <raw_token>`)."""

    user: User
    token: ApiToken
    raw_token: str

    def client(self) -> APIClient:
        """A DRF test client that authenticates with the token."""
        from rest_framework.test import APIClient

        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {self.raw_token}")
        return client

    def session(self) -> requests.Session:
        """A requests session that authenticates with the token, for a live server."""
        import requests

        http = requests.Session()
        http.headers["Authorization"] = f"Token {self.raw_token}"
        return http


def make_token_user(username: str, *, staff: bool = False, password: str = "correct horse battery") -> TokenUser:
    """A new user `username` with an API token named `<username> token`."""
    from django.contrib.auth.models import User

    user = User.objects.create_user(username, password=password, is_staff=staff)
    return token_user_of(user, token_name=f"{username} token")


def grant(user: Any, role: Any, project: Any = None) -> None:
    """Give `user` `role` (backend.projects.models.Role) in `project` (default: the default project)."""
    from backend.projects.models import Membership, default_project

    target = project if project is not None else default_project()
    Membership.objects.update_or_create(project=target, user=user, defaults={"role": role})
    if hasattr(user, "_tankodrom_roles"):
        del user._tankodrom_roles


def token_user_of(user: User, token_name: str = "") -> TokenUser:
    """`user` with a new API token."""
    from backend.loadtests.tokens import create_token

    token, raw = create_token(user, name=token_name)
    return TokenUser(user=user, token=token, raw_token=raw)


@dataclass
class WorkerProcess:
    """A real Celery worker (with beat when asked) running the test settings in a subprocess."""

    env: dict[str, str]
    queues: str = "default,ingest,uploads,analysis,outbound"
    beat: bool = False
    process: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None
    pool: str = "threads"
    concurrency: int = 4

    def start(self, timeout_s: float = 60) -> None:
        cmd = [
            sys.executable, "-m", "celery", "-A", "backend", "worker", "-Q", self.queues,
            "--pool", self.pool, "--concurrency", str(self.concurrency), "--loglevel", "INFO",
        ]  # fmt: skip
        if self.beat:
            cmd.append("-B")
            if self.log_path is not None:  # the beat's schedule beside the log, not in the working tree
                cmd += ["--schedule", str(self.log_path.with_suffix(".beat-schedule"))]
        log = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        self.process = subprocess.Popen(cmd, cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        from backend.celery_app import app

        # No pause between tries: a ping waits its own 0.5 s for an answer.
        wait_until_up(
            self.process,
            lambda: bool(app.control.ping(timeout=0.5)),
            timeout_s,
            lambda: "Celery worker did not answer a ping",
            poll_s=0,
        )

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
            self.process = None


def api_client_for(user: Any) -> Any:
    """A DRF test client that authenticates as `user` with a fresh API token, as scripts and tanks do."""
    return token_user_of(user).client()


def worker_env(**overrides: str) -> dict[str, str]:
    """The environment a subprocess (worker, gunicorn) needs to share the test databases of this process.

    Rows a test writes are visible to the subprocess only once committed: use `transactional_db`.
    """
    from django.conf import settings
    from django.db import connection

    db = connection.settings_dict
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="backend.settings_test",
        DATABASE_URL=f"postgres://{db['USER']}:{db['PASSWORD']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        CELERY_TASK_ALWAYS_EAGER="0",
        REDIS_TEST_URL=settings.REDIS_URL,
        CLICKHOUSE_TEST_DATABASE=str(settings.CLICKHOUSE["database"]),
        # This process's password, whatever TANKODROM_VAR_DIR the subprocess gets (its file is in this one's).
        CLICKHOUSE_PASSWORD=str(settings.CLICKHOUSE["password"]),
    )
    env.update(overrides)
    return env


class BackgroundThread:
    """A thread that works beside a `with` block: `_run` starts on entry; on exit `stop` is set (which `_run`
    watches) and the thread is joined, for 30 s at the most."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join(30)


class BeatFlusher(BackgroundThread):
    """Drains the tank buffer every `period_s` in a thread, as the Celery beat does every second in production
    (use with the transactional_db fixture: the thread has its own database connection)."""

    def __init__(self, period_s: float = 0.5) -> None:
        super().__init__()
        self.period_s = period_s
        self.errors: list[str] = []

    def _run(self) -> None:
        from django.db import connection

        from backend.tankapi import flush

        try:
            while not self.stop.is_set():
                result = flush.flush_all(max_seconds=5)
                if result.error:
                    self.errors.append(result.error)
                self.stop.wait(self.period_s)
        finally:
            connection.close()


class LiveASGIServer:
    """The production entry (backend.asgi's TankPushASGI in front of Django) under uvicorn with httptools and uvloop,
    as gunicorn's worker runs it, in a thread of the test process, so the suite's database is the one it serves.
    `.url` is its address; `.fast_paths` lists the paths the push fast path answered, `.pushes` each with its arrival
    (unix s) and body. Use with the transactional_db fixture: the server's threads have their own database
    connections."""

    def __init__(self, threads: int = 4) -> None:
        import threading

        import uvicorn
        from django.core.wsgi import get_wsgi_application

        from backend.fastpaths.asgi_door import TankPushASGI

        self.fast_paths: list[str] = []
        self.pushes: list[tuple[float, str, bytes]] = []
        fast_paths, pushes = self.fast_paths, self.pushes

        class RecordingDoor(TankPushASGI):
            async def push(self, scope: Any, *args: Any) -> None:
                fast_paths.append(scope["path"])
                pushes.append((time.time(), scope["path"], args[1]))
                await super().push(scope, *args)

        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}"
        self.door = RecordingDoor(get_wsgi_application(), threads=threads)
        config = uvicorn.Config(
            self.door,
            loop="uvloop",
            http="httptools",
            lifespan="on",
            log_level="warning",
            timeout_keep_alive=30,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]}, daemon=True)

    def __enter__(self) -> LiveASGIServer:
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the live ASGI server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=30)
        self._socket.close()


def insert_upload_samples(
    test_id: int, upload_id: int, columns: SampleColumns, cases: Sequence[str], *, tag: str
) -> None:
    """An upload's raw samples, sent as ingestion sends them (`cases` names the samples' case codes)."""
    from analytics.schema.samples import FIELDS, PhoutBatch
    from backend.clickhouse import client
    from backend.clickhouse.tables import samples
    from backend.uploads.stages import IdColumns, sample_columns

    batch = PhoutBatch.of({name: getattr(columns, name) for name in FIELDS})
    with client.native_insert(samples.NAME, samples.COLUMNS, tag=tag) as insert:
        insert.send(sample_columns(IdColumns(test_id, upload_id), batch, tuple(cases)))


def insert_upload_aggregates(
    test_id: int, upload_id: int, columns: SampleColumns, cases: Sequence[str], *, tag: str, received_at_us: int = 1
) -> None:
    """The per-second aggregates ingestion derives from an upload's samples, one INSERT of a block per hundred
    seconds (every sample of a second in one block: rows of one second and case with one `received_at_us` would
    replace each other)."""
    import numpy as np

    from analytics.aggregate import aggregate_table
    from backend.clickhouse import client
    from backend.clickhouse.tables import second_aggregates

    receive_sec = np.asarray(columns.receive_sec)
    with client.native_insert(second_aggregates.NAME, second_aggregates.COLUMNS, tag=tag) as insert:
        for start in range(int(receive_sec.min()), int(receive_sec.max()) + 1, 100):
            piece = columns.take(np.flatnonzero((receive_sec >= start) & (receive_sec < start + 100)))
            table = aggregate_table(piece, list(cases))
            insert.send(second_aggregates.columns_of(test_id, upload_id, table, received_at_us))
