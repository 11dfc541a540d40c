"""Images for tests: a tiny PNG, a scripted model that takes images, and the images a request carries."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from miniroom.testing.scripted_provider import ScriptedProvider

# A 1x1 PNG: what a screenshot is to the model, in fewer bytes.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def image_model(provider: ScriptedProvider, api: str) -> dict[str, Any]:
    """The scripted model on wire protocol `api`, able to take images (models.json says so)."""
    base = provider.url if api == "anthropic-messages" else provider.openai_base_url
    variables = [f"MINI_BASE_URL={base}", f"MINI_API={api}", "MINI_API_KEY=sk-test"]
    return {
        "model": "scripted/seeing-model",
        "variables": [*variables, "MINI_PROFILE_DISABLED_TOOLS=load_skill"],
    }


def takes_images(agent_dir: Path) -> None:
    agent_dir.mkdir(parents=True, exist_ok=True)
    models = {"providers": {"scripted": {"modelOverrides": {"seeing-model": {"input": ["text", "image"]}}}}}
    (agent_dir / "models.json").write_text(json.dumps(models), encoding="utf-8")


def image_blocks(body: dict[str, Any]) -> list[str]:
    """The base64 data of every image in a request, on either wire protocol."""
    found: list[str] = []
    for message in body["messages"]:
        content = message.get("content")
        for block in content if isinstance(content, list) else ():
            if block.get("type") == "image":
                found.append(block["source"]["data"])
            elif block.get("type") == "image_url":
                found.append(block["image_url"]["url"].partition("base64,")[2])
    return found
