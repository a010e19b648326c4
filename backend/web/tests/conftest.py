"""A built frontend for the page views' tests: an index.html and Vite's manifest in a temporary FRONTEND_DIST."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_django.fixtures import Settings

INDEX = (
    "<!doctype html><html><head><title>Tankodrom</title>"
    '<script type="module" src="/static/assets/index-abc.js"></script></head>'
    '<body><div id="root"></div></body></html>'
)


MANIFEST = {
    "_plotly-x1.js": {"file": "assets/plotly-x1.js", "name": "plotly", "imports": ["index.html"]},
    "index.html": {"file": "assets/index-abc.js", "name": "index", "isEntry": True},
}


@pytest.fixture
def dist(tmp_path: Path, settings: Settings) -> Path:
    (tmp_path / "index.html").write_text(INDEX, encoding="utf-8")
    (tmp_path / ".vite").mkdir()
    (tmp_path / ".vite" / "manifest.json").write_text(json.dumps(MANIFEST), encoding="utf-8")
    settings.FRONTEND_DIST = tmp_path
    return tmp_path
