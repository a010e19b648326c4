"""A server that holds many tests: the lists, search, tag filters, a component's dashboard and its CI check.

Builds, in databases of its own (PostgreSQL `tk_list_scale`, ClickHouse `tankodrom_list_scale`, Redis db 6 or
LIST_SCALE_REDIS_URL), `--tests` finished tests (default 10,000) of 50 people over 100 components in 10 projects (each
person a member of two; 65 % of the tests public, 10 % for signed-in users, 20 % for the project's members, 5 %
private), with the list's figures (TestFigures) and tags as post-processing leaves them; one component (`checkout`)
has `--component-tests` of them (default 500) with their per-second rows in ClickHouse, their KPI figures warmed as
post-processing does (regressions.kpis.warm) and a baseline. Then times each answer through Django's test client
(view, queries, serialization; no network), as a signed-in user who owns some of the tests, `--repeat` calls each
after one warm-up call. Baseline in the same run: `/api/v1/me` (the whole request cycle, no query of tests).

    .venv/bin/python bench/list_scale/run.py --out bench/list_scale/results.json
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from bench import support  # noqa: E402  (the repository's root is on the path only from here)

PG_DB = "tk_list_scale"
CH_DB = "tankodrom_list_scale"
REDIS_URL = os.environ.get("LIST_SCALE_REDIS_URL", "redis://127.0.0.1:6379/6")
COMPONENT = "checkout"
TAGS = ("nightly", "release", "smoke", "canary", "regression", "prod", "staging", "soak")
GOAL_P95_MS = 300.0
PROJECTS = 10


def build(tests: int, component_tests: int, seed: int) -> dict[str, Any]:
    """The data; returns what the measurement needs (the user, the ids)."""
    support.recreate_postgres_database(PG_DB)
    import django

    django.setup()
    from django.contrib.auth.models import User
    from django.core.cache import cache
    from django.core.management import call_command

    from backend.clickhouse import migrate
    from backend.loadtests.models import Test, TestStatus
    from backend.projects.models import Membership, Project, Role, Visibility
    from backend.regressions import baselines, kpis
    from backend.reports.models import TestFigures, TestTag
    from backend.sharing.tests.rows import insert_seconds
    from backend.testing import drop_database

    call_command("migrate", verbosity=0)
    drop_database()
    migrate.apply_all()
    cache.clear()
    rng = random.Random(seed)
    users = [User(username=f"person{i}") for i in range(50)]
    User.objects.bulk_create(users)
    users = list(User.objects.order_by("id"))
    # A company's teams: each component belongs to one project; each person is a member of two projects.
    projects = Project.objects.bulk_create([Project(slug=f"team-{k}", name=f"Team {k}") for k in range(PROJECTS)])
    Membership.objects.bulk_create(
        [
            Membership(project=projects[(n + step) % PROJECTS], user=user, role=role)
            for n, user in enumerate(users)
            for step, role in ((0, Role.ADMIN if n == 0 else Role.UPLOADER), (1, Role.VIEWER))
        ]
    )
    start = datetime(2025, 1, 1, tzinfo=UTC)
    rows = []
    every = max(1, tests // max(1, component_tests))
    in_checkout = 0
    for i in range(tests):
        in_component = i % every == 0 and in_checkout < component_tests
        in_checkout += in_component
        service = rng.randrange(100)
        component = COMPONENT if in_component else f"service-{service}"
        first_ts = int((start + timedelta(minutes=30 * i)).timestamp())
        rows.append(
            Test(
                owner=users[rng.randrange(len(users))],
                name=f"{component} release {i // 7}.{i % 7} {rng.choice(['ramp', 'const', 'step', 'soak'])}",
                description=f"build {i} against {component}",
                task=f"LOAD-{rng.randrange(5000)}",
                component=component,
                version=f"1.{i // 100}.{i % 100}",
                status=TestStatus.READY,
                project=projects[0 if in_component else service % PROJECTS],
                visibility=_visibility(rng) if not in_component else Visibility.PUBLIC,
                first_ts=first_ts,
                last_ts=first_ts + 60,
                finished_at=start + timedelta(minutes=30 * i + 1),
            )
        )
    Test.objects.bulk_create(rows, batch_size=2000)
    ids = list(Test.objects.order_by("id").values_list("id", flat=True))
    # created_at is set on insert: spread it as a real history would be.
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Test._meta.db_table} SET created_at = %s + (id - %s) * interval '30 minutes'", [start, ids[0]]
        )
    TestFigures.objects.bulk_create(
        [
            TestFigures(
                test_id=pk,
                responses=rng.randrange(10_000, 5_000_000),
                q99_ms=rng.uniform(20, 900),
                max_rps=rng.uniform(100, 20_000),
                failed=rng.randrange(0, 500),
            )
            for pk in ids
        ],
        batch_size=5000,
    )
    TestTag.objects.bulk_create(
        [TestTag(test_id=pk, name=tag) for pk in ids for tag in rng.sample(TAGS, rng.randrange(0, 3))], batch_size=5000
    )
    checkout = list(Test.objects.filter(component=COMPONENT).order_by("id"))
    for n, test in enumerate(checkout):
        slow = 5 + (n % 40 == 0) * 30
        insert_seconds(
            int(test.pk), 0, 60, fast_ms=20 + n % 7, slow_ms=300, fast=95, slow=slow, start_ts=int(test.first_ts or 0)
        )
        Test.objects.filter(pk=test.pk).update(has_stream=True)
    for test in checkout:
        kpis.warm(int(test.pk))
    baselines.set_baseline(projects[0].pk, COMPONENT, checkout[len(checkout) // 2], users[0])
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # as autovacuum would after such a load: the planner needs the tables' sizes
    me = users[0]
    return {
        "user": me.username,
        "component_tests": len(checkout),
        "latest_checkout": int(checkout[-1].pk),
        "tests": len(ids),
    }


def _visibility(rng: random.Random) -> str:
    """Most tests public as on Overload; some for signed-in users, some for the project's members, a few private."""
    from backend.projects.models import Visibility

    draw = rng.random()
    if draw < 0.05:
        return str(Visibility.OWNER)
    if draw < 0.25:
        return str(Visibility.PROJECT)
    if draw < 0.35:
        return str(Visibility.INTERNAL)
    return str(Visibility.PUBLIC)


def _stats(values_s: list[float]) -> dict[str, float]:
    ordered = sorted(values_s)

    def pct(p: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000, 1)

    return {"p50_ms": pct(0.5), "p95_ms": pct(0.95), "max_ms": round(ordered[-1] * 1000, 1)}


def measure(built: dict[str, Any], repeat: int) -> dict[str, Any]:
    from django.contrib.auth.models import User
    from django.test import Client

    client = Client()
    client.force_login(User.objects.get(username=built["user"]))
    latest = built["latest_checkout"]
    urls = {
        "baseline: /api/v1/me": "/api/v1/me",
        "list, page 1": "/api/v1/tests/",
        "list, page 100": "/api/v1/tests/?page=100",
        "list by q99": "/api/v1/tests/?ordering=-q99",
        "search (a word)": "/api/v1/tests/?search=release%2012",
        "search (an id)": f"/api/v1/tests/?search={latest}",
        "tag filter": "/api/v1/tests/?tag=nightly",
        "two tags": "/api/v1/tests/?tag=nightly&tag=prod",
        "component's tests": f"/api/v1/tests/?component={COMPONENT}",
        "a project's tests": "/api/v1/tests/?project=team-3",
        "component dashboard": f"/api/v1/components/{COMPONENT}/dashboard",
        "component trend": f"/api/v1/components/{COMPONENT}/trend",
        "check answer": f"/api/v1/components/{COMPONENT}/check/{latest}",
    }
    out: dict[str, Any] = {}
    for what, url in urls.items():
        first = client.get(url)
        assert first.status_code == 200, (url, first.status_code, first.content[:300])
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            response = client.get(url)
            times.append(time.perf_counter() - started)
            assert response.status_code == 200, url
        out[what] = {"url": url, **_stats(times), "bytes": len(first.content)}
        verdict = "ok" if what.startswith("baseline") or out[what]["p95_ms"] < GOAL_P95_MS else "OVER GOAL"
        print(
            f"  {what:24} p50 {out[what]['p50_ms']:7.1f} ms  p95 {out[what]['p95_ms']:7.1f} ms  {verdict}", flush=True
        )
    return out


def _vm() -> str:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        for line in subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tests", type=int, default=10_000)
    parser.add_argument("--component-tests", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--seed", type=int, default=32)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--reuse", action="store_true", help="measure the data the previous run built")
    args = parser.parse_args()
    var_dir = ROOT / "var" / "bench_list_scale"
    var_dir.mkdir(parents=True, exist_ok=True)
    os.environ.update(support.app_env(PG_DB, CH_DB, REDIS_URL, var_dir))
    started = time.perf_counter()
    saved = var_dir / "built.json"
    if args.reuse:
        import django

        django.setup()
        built = json.loads(saved.read_text())
    else:
        built = build(args.tests, args.component_tests, args.seed)
        saved.write_text(json.dumps(built))
    print(
        f"built {built['tests']} tests ({built['component_tests']} in {COMPONENT}) in "
        f"{time.perf_counter() - started:.0f} s",
        flush=True,
    )
    with support.exclusive_lock():
        results = {"vm": _vm(), "cpus": os.cpu_count(), **built, "answers": measure(built, args.repeat)}
    if args.out:
        args.out.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
