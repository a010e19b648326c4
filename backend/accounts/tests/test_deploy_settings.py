"""Production settings pass `manage.py check --deploy`, and keep their secret key private."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def _check_deploy(tmp_path: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "TANKODROM_"))}
    env.update(DJANGO_SETTINGS_MODULE="backend.settings_prod", TANKODROM_VAR_DIR=str(tmp_path), **extra)
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_and_the_generated_key_is_private(tmp_path: Path) -> None:
    result = _check_deploy(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout
    key_file = tmp_path / "secret_key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = key_file.read_text()
    assert len(key) >= 50
    # A second start reuses the key (sessions survive restarts).
    assert _check_deploy(tmp_path).returncode == 0
    assert key_file.read_text() == key


def test_plain_http_instance_is_flagged(tmp_path: Path) -> None:
    result = _check_deploy(tmp_path, TANKODROM_HTTPS="0", DJANGO_SECRET_KEY="k" * 20 + "-" + "x1y2z3" * 8)
    assert result.returncode != 0
    assert "SECURE_SSL_REDIRECT" in result.stderr + result.stdout
    assert not (tmp_path / "secret_key").exists()  # the key from the environment wins
