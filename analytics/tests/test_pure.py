"""analytics/ is pure: every module imports with Django and the ClickHouse driver absent."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

import analytics

BLOCKER = """
import sys, importlib.abc
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split('.')[0] in {'django', 'clickhouse_driver', 'celery', 'redis', 'psycopg2', 'rest_framework'}:
            raise ImportError('analytics must not import ' + name)
        return None
sys.meta_path.insert(0, Block())
import importlib
for name in sys.argv[1:]:
    importlib.import_module(name)
print('ok', len(sys.argv) - 1)
"""


def test_every_analytics_module_imports_without_django() -> None:
    names = [
        info.name
        for info in pkgutil.walk_packages(analytics.__path__, prefix="analytics.")
        if ".tests" not in info.name
    ]
    assert "analytics.histogram" in names
    result = subprocess.run(
        [sys.executable, "-c", BLOCKER, *names],
        capture_output=True,
        text=True,
        cwd=Path(analytics.__file__).resolve().parent.parent,
    )
    assert result.returncode == 0, result.stderr
