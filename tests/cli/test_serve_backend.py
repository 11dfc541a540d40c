"""`serve`'s backend is built from the environment it is given (the process's, with config.yaml's `.env`),
not from the process's own alone."""

from __future__ import annotations

import os
from pathlib import Path

from miniroom.cli.serve import ServePaths, WebOptions, create_backend
from miniroom.cli.serve_api import agent_cli
from miniroom.config.config_yaml import RoomsConfig
from miniroom.minimal.deployment import GATEWAY_ISOLATED, GATEWAY_PATH, GATEWAY_PORT, GATEWAY_URL
from miniroom.rooms.runtime.live_config import LiveConfig
from miniroom.rooms.runtime.metrics import RoomMetrics
from tests.runtime.serve_process import free_port


def test_the_script_gateway_comes_of_the_environment_serve_is_given(tmp_path: Path) -> None:
    web, gateway = WebOptions("127.0.0.1", free_port()), free_port()
    env = {
        GATEWAY_ISOLATED: "true",
        GATEWAY_PORT: str(gateway),
        GATEWAY_URL: f"http://127.0.0.1:{gateway}{GATEWAY_PATH}",
    }
    assert GATEWAY_PORT not in os.environ
    data_dir = tmp_path / "miniroom_data"
    cli = agent_cli(env, data_dir, web.host, web.port, insecure=False, exposed=False)
    paths = ServePaths(tmp_path / "config.yaml", tmp_path, data_dir)
    backend = create_backend(LiveConfig(RoomsConfig()), paths, web, env, cli, RoomMetrics())
    try:
        announced = [listener.announce for listener in backend.listeners]
    finally:
        backend.close()
        for listener in backend.listeners:
            listener.socket.close()
        cli.store.close()
    assert f"miniroom: script gateway (miniroom-agent) at http://127.0.0.1:{gateway}/" in announced
