"""config.yaml as the runtime serves it now: one holder the runtime's parts all read, so a changed file is
applied by replacing what the holder holds, once."""

from __future__ import annotations

from miniroom.config.config_yaml import RoomsConfig


class LiveConfig:
    """The config.yaml in force; `current` is replaced whole when the file changes."""

    def __init__(self, config: RoomsConfig) -> None:
        self.current = config


class ReadsLiveConfig:
    """A part of the runtime that reads the config in force from a `LiveConfig` (`live`)."""

    live: LiveConfig

    def read_config(self, config: RoomsConfig | LiveConfig) -> None:
        """Read from `config` when it is a holder; else from a holder of its own (a part used alone)."""
        self.live = config if isinstance(config, LiveConfig) else LiveConfig(config)

    @property
    def config(self) -> RoomsConfig:
        return self.live.current
