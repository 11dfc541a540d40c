"""A throwaway Synapse homeserver on 127.0.0.1: SQLite, fast bcrypt, no rate limits, open registration."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import httpx
import yaml

SERVER_NAME = "miniroom.test"
START_TIMEOUT = 60.0
STOP_TIMEOUT = 10.0
_UNLIMITED = {"per_second": 1000, "burst_count": 10000}
_RATE_LIMITS: dict[str, Any] = {
    "rc_message": _UNLIMITED,
    "rc_registration": _UNLIMITED,
    "rc_registration_token_validity": _UNLIMITED,
    "rc_login": {"address": _UNLIMITED, "account": _UNLIMITED, "failed_attempts": _UNLIMITED},
    "rc_joins": {"local": _UNLIMITED, "remote": _UNLIMITED},
    "rc_joins_per_room": _UNLIMITED,
    "rc_invites": {"per_room": _UNLIMITED, "per_user": _UNLIMITED, "per_issuer": _UNLIMITED},
    "rc_admin_redaction": _UNLIMITED,
    "rc_3pid_validation": _UNLIMITED,
    "rc_third_party_invite": _UNLIMITED,
    "rc_media_create": _UNLIMITED,
    "rc_federation": {"window_size": 1000, "sleep_limit": 10000, "reject_limit": 10000, "concurrent": 1000},
    "rc_presence": {"per_user": _UNLIMITED},
    "rc_delayed_event_mgmt": _UNLIMITED,
    "rc_reports": _UNLIMITED,
    "rc_room_creation": _UNLIMITED,
}


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def homeserver_config(folder: Path, port: int, *, registration: bool = True) -> dict[str, Any]:
    """The homeserver.yaml content for a test server in `folder`."""
    return {
        "server_name": SERVER_NAME,
        "pid_file": str(folder / "homeserver.pid"),
        "listeners": [
            {
                "port": port,
                "bind_addresses": ["127.0.0.1"],
                "type": "http",
                "tls": False,
                "x_forwarded": False,
                "resources": [{"names": ["client"], "compress": False}],
            }
        ],
        "database": {"name": "sqlite3", "args": {"database": str(folder / "homeserver.db")}},
        "log_config": str(folder / "log.config"),
        "media_store_path": str(folder / "media"),
        "signing_key_path": str(folder / "signing.key"),
        "registration_shared_secret": "miniroom-test-only",
        "macaroon_secret_key": "miniroom-test-macaroon",
        "form_secret": "miniroom-test-form",
        "report_stats": False,
        "trusted_key_servers": [],
        "suppress_key_server_warning": True,
        "bcrypt_rounds": 4,
        "enable_registration": registration,
        "enable_registration_without_verification": registration,
        "presence": {"enabled": False},
        "url_preview_enabled": False,
        "enable_metrics": False,
        **_RATE_LIMITS,
    }


_LOG_CONFIG = """\
version: 1
formatters:
  precise: {format: '%(asctime)s %(name)s %(levelname)s %(message)s'}
handlers:
  file: {class: logging.FileHandler, formatter: precise, filename: LOGFILE}
root: {level: WARNING, handlers: [file]}
disable_existing_loggers: false
"""


@dataclass
class Synapse:
    """A running Synapse: its URL, server name and the folder holding its config, database and log."""

    url: str
    server_name: str
    folder: Path
    process: subprocess.Popen[bytes]

    @classmethod
    def start(cls, folder: Path, *, registration: bool = True) -> Synapse:
        """Write a config into `folder`, start Synapse in its own process group and wait until it answers."""
        folder.mkdir(parents=True, exist_ok=True)
        port = free_port()
        config_path = folder / "homeserver.yaml"
        config_path.write_text(yaml.safe_dump(homeserver_config(folder, port, registration=registration)))
        (folder / "log.config").write_text(_LOG_CONFIG.replace("LOGFILE", str(folder / "homeserver.log")))
        with (folder / "stdout.log").open("wb") as output:  # the child keeps its own copy
            process = subprocess.Popen(
                [sys.executable, "-m", "synapse.app.homeserver", "-c", str(config_path)],
                cwd=folder,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        server = cls(f"http://127.0.0.1:{port}", SERVER_NAME, folder, process)
        try:
            server._wait_until_ready()
        except BaseException:
            server.stop()
            raise
        return server

    def _wait_until_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Synapse exited with {self.process.returncode}; see {self.folder}/*.log")
            try:
                if httpx.get(f"{self.url}/_matrix/client/versions", timeout=1.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"Synapse did not answer on {self.url} within {START_TIMEOUT:.0f} s")

    def stop(self) -> None:
        """Stop the whole process group: TERM, then KILL after a grace period."""
        if self.process.poll() is not None:
            return
        group = os.getpgid(self.process.pid)
        os.killpg(group, signal.SIGTERM)
        try:
            self.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(group, signal.SIGKILL)
            self.process.wait(timeout=STOP_TIMEOUT)

    def register(self, localpart: str, password: str = "human-password") -> tuple[str, str]:
        """Register a human account with the dummy flow; return its user id and access token."""
        body = {"username": localpart, "password": password, "auth": {"type": "m.login.dummy"}}
        reply = httpx.post(f"{self.url}/_matrix/client/v3/register", json=body, timeout=10.0)
        reply.raise_for_status()
        data = reply.json()
        return str(data["user_id"]), str(data["access_token"])

    def __enter__(self) -> Synapse:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()
