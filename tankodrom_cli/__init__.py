"""The `tankodrom` command-line client (console script declared in pyproject.toml)."""
