"""Where the server is and how to authenticate: the options every `tankodrom` command takes alike."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any


def add_server_options(parser: Any, default_server: str) -> None:
    """--server (default $TANKODROM_URL, else `default_server`), --token and --token-file."""
    parser.add_argument("--server", default=os.environ.get("TANKODROM_URL", default_server), help="server base URL")
    parser.add_argument("--token", help="API token (default: $TANKODROM_TOKEN)")
    parser.add_argument("--token-file", help="file holding the API token")


def token_of(args: argparse.Namespace) -> str:
    """--token, else the content of --token-file (OSError if it cannot be read), else $TANKODROM_TOKEN; '' if none."""
    if args.token:
        return str(args.token)
    if args.token_file:
        return Path(args.token_file).read_text().strip()
    return os.environ.get("TANKODROM_TOKEN", "")
