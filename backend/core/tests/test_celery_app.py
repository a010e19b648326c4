"""Importing the project reads no setting: `import backend` imports the Celery app (backend/__init__.py), and a
script that imports a backend module before it sets its environment (a bench choosing its database) must still get
the settings of that environment."""

from __future__ import annotations

import subprocess
import sys

from backend.core.tests.test_import_cycles import ROOT


def test_importing_a_backend_module_leaves_the_settings_unread() -> None:
    check = "import sys, backend.env; assert 'backend.settings' not in sys.modules, 'import backend read the settings'"
    subprocess.run([sys.executable, "-c", check], cwd=ROOT, check=True, timeout=60)


def test_the_routes_by_name_are_read_when_a_task_is_sent() -> None:
    from backend.celery_app import route_by_name

    assert route_by_name("backend.reports.tasks.postprocess_test") == {"queue": "analysis"}
    assert route_by_name("backend.notify.tasks.deliver") == {"queue": "outbound"}
    assert route_by_name("backend.nothing.tasks.unknown") is None
