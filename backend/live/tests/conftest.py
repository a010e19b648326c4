"""The real tank's fixtures (its virtualenv, a target, the live server), shared with backend/tankapi's tests."""

from backend.tankapi.tests.test_real_tank import live_app, tank_venv, target  # noqa: F401
