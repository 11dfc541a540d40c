"""The pydantic model of `.miniroom/retry.yml`: imported only when a project has the file."""

from __future__ import annotations

from miniroom.config.settings_model import OptionalPositiveWhole, SettingsModel


class RetryFile(SettingsModel):
    retry_interval_seconds: OptionalPositiveWhole = None
    max_attempts: OptionalPositiveWhole = None
