"""Where an agent's fetch and search services run, and what they expand their settings with."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class ServiceEnvironment:
    """What a service may need beside its settings: the environment its children get (`tools.environment`),
    miniroom's own environment (for its own settings, such as MINIROOM_WEB_BASE_URL_*; never given to a
    child), the project folder, and the engine's data folder."""

    env: Mapping[str, str] = field(default_factory=dict)
    environ: Mapping[str, str] = field(default_factory=dict)
    project_dir: Path = Path()
    data_dir: Path = Path()


@dataclass(frozen=True)
class WebContext:
    """What the services of one agent expand their settings with, and where they run."""

    variables: Mapping[str, str]
    environ: Mapping[str, str]
    where: ServiceEnvironment
