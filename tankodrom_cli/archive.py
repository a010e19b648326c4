"""`tankodrom export ID -o FILE` and `tankodrom import FILE`: a test as one archive file, moved between servers.

export: `GET /api/v1/tests/<id>/archive` saved to FILE (default tankodrom-test-<id>.zip).
import: the file sent as the body of `POST /api/v1/archives`, with a progress bar; prints the new test's URL.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tqdm import tqdm

from tankodrom_cli.options import add_server_options, token_of
from tankodrom_cli.transport import Api, FileRange

BODY_SHOWN = 200


class ArchiveCliError(Exception):
    pass


def add_parsers(sub: Any, default_server: str) -> None:
    out = sub.add_parser("export", help="save a test as one archive file (metadata, samples, aggregates, monitoring)")
    out.add_argument("test", type=int, help="the test to export")
    out.add_argument("-o", "--output", help="the file to write (default: tankodrom-test-<id>.zip)")
    add_server_options(out, default_server)
    into = sub.add_parser("import", help="create a test from an archive file made by `tankodrom export`")
    into.add_argument("file", help="the archive file")
    into.add_argument("--quiet", action="store_true", help="no progress bar")
    add_server_options(into, default_server)


def _api(args: argparse.Namespace) -> Api:
    token = token_of(args)
    if not token:
        raise ArchiveCliError("an API token is needed: --token, --token-file or the TANKODROM_TOKEN variable")
    try:
        return Api(args.server, token)
    except ValueError as exc:
        raise ArchiveCliError(f"--server: {exc}") from exc


def run_export(args: argparse.Namespace) -> int:
    api = _api(args)
    response = api.call("GET", f"/api/v1/tests/{args.test}/archive")
    if response.status_code != 200:
        raise ArchiveCliError(f"export refused: {response.error(BODY_SHOWN)}")
    path = Path(args.output or f"tankodrom-test-{args.test}.zip")
    path.write_bytes(response.body)
    print(f"test {args.test}: {len(response.body):,} bytes written to {path}", file=sys.stderr)
    print(path)
    return 0


def run_import(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if not path.is_file():
        raise ArchiveCliError(f"no such file: {path}")
    api = _api(args)
    size = path.stat().st_size
    with (
        path.open("rb") as f,
        tqdm(total=size, unit="B", unit_scale=True, unit_divisor=1024, disable=args.quiet, file=sys.stderr) as bar,
    ):
        body = FileRange(f, 0, size, bar.update)
        response = api.call("POST", "/api/v1/archives", body=body, headers={"Content-Type": "application/zip"})
    if response.status_code != 201:
        raise ArchiveCliError(f"import refused: {response.error(BODY_SHOWN)}")
    print(f"{api.server}/{response.json()['id']}")
    return 0
