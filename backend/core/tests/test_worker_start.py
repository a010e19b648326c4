"""What a Celery worker does as it starts (backend/celery_app.py), checked in a fresh interpreter: it changes the
process's garbage collector, which the test process must keep as it is."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import gc, sys
import django
django.setup()
from backend.celery_app import _warm_up
assert 'pandas' not in sys.modules and gc.get_freeze_count() == 0
_warm_up()
print('pandas' in sys.modules, gc.get_freeze_count())
"""


def test_the_worker_loads_the_slow_modules_then_freezes_what_it_loaded() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, timeout=120)
    pandas_loaded, frozen = done.stdout.split()
    assert pandas_loaded == "True"
    assert int(frozen) > 50_000  # Django, numpy, pandas (~100,000 objects): out of every later collection's walk
