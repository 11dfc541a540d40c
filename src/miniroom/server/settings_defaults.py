"""What the settings pages show beside the files: built-in defaults, the tools a profile manages, the
built-in prompt, and the rules a name must follow, all taken from the code that applies them."""

from __future__ import annotations

import dataclasses
from typing import Any

from miniroom.agent.profile import PROFILE_NAME, ProfileSettings
from miniroom.agent.prompt import BASE_PROMPT
from miniroom.agent.session_settings import plain_value
from miniroom.config.paths import RETRY_FILE
from miniroom.config.problems import camel_key
from miniroom.engine import RetryPolicy
from miniroom.llm import THINKING_LEVELS
from miniroom.tools import BUILTIN_TOOL_NAMES, TOOL_REQUIRES


def defaults_json() -> dict[str, Any]:
    profile = ProfileSettings()
    retry = RetryPolicy()
    return {
        "profile": {
            "defaults": {
                camel_key(field.name): plain_value(getattr(profile, field.name))
                for field in dataclasses.fields(ProfileSettings)
            },
            "tools": list(BUILTIN_TOOL_NAMES),
            "toolRequires": dict(TOOL_REQUIRES),
            "basePrompt": BASE_PROMPT,
            "nameMask": PROFILE_NAME.pattern,
            "thinkingLevels": list(THINKING_LEVELS),
        },
        "retry": {
            "location": RETRY_FILE.as_posix(),
            "defaults": {
                "retryIntervalSeconds": int(retry.interval_seconds),
                "maxAttempts": retry.max_attempts,
            },
        },
    }
