"""The tank's side of the Overload protocol (tank-protocol.md), spoken by `tankodrom follow` and the Locust
listener: create the job, push each second, close it, as yandex-tank's `overload:` uploader does.

A followed generator is then a tank test to the server: online from its creation, its seconds on the same online
pages and push channel, stoppable from the web (a push answered 410), closed with the generator's exit code.
"""

from __future__ import annotations

import getpass
import socket
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tankodrom_cli.transport import Api, Response

# The job's metadata, as edit.json takes it (the rest of the tank's fields do not apply to another generator).
EDIT_FIELDS = ("name", "description", "component", "version")
STOPPED = 410  # the test was stopped from the web (or closed): no more pushes


class TankError(Exception):
    """The server refused to create the job."""


@dataclass
class TankJob:
    api: Api
    id: int
    upload_token: str
    api_token: str

    @classmethod
    def create(cls, api: Api, api_token: str, meta: Mapping[str, Any]) -> TankJob:
        """create.json, then edit.json with the test's name, description, component and version."""
        body = {
            "task": str(meta.get("task") or ""),
            "person": _user(),
            "tank": socket.getfqdn(),
            "host": "",
            "port": 80,
            "loadscheme": list(meta.get("loadscheme") or []),
            "detailed_time": None,
            "notify": [],
        }
        created = api.call("POST", "/api/job/create.json", json_body=body)
        try:
            answer = created.json()[0]
            job = cls(api, int(answer["job"]), str(answer["upload_token"]), api_token)
        except (ValueError, LookupError, TypeError):
            raise TankError(f"could not create the test: {created.error(200)}") from None
        edit = {name: meta[name] for name in EDIT_FIELDS if meta.get(name) is not None}
        edit["command_line"] = " ".join(sys.argv)
        edited = api.call("POST", f"/api/job/{job.id}/edit.json", json_body=edit)
        if edited.status_code != 200:
            raise TankError(f"could not name test {job.id}: {edited.error(200)}")
        return job

    def push(self, items: list[dict[str, Any]]) -> Response:
        """push_data.json with one second's items (the tank's upload_token and api_token in the query)."""
        query = {"upload_token": self.upload_token, "api_token": self.api_token}
        return self.api.call("POST", f"/api/job/{self.id}/push_data.json", params=query, json_body=items)

    def close(self, exit_code: int | None) -> Response:
        return self.api.call("GET", f"/api/job/{self.id}/close.json", params={"exitcode": str(exit_code)})


def _user() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return ""
