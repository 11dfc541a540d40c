"""The TypeSafe "System One" judgment API: one yes/no (`noul`) question about the request's messages.

POST {TYPESAFE_BASE_URL or https://api.typesafe.ai}/v1/systemone
Authorization: Bearer $TYPESAFE_API_KEY
{"state": {...}, "model": "jev-latest", "questions": {"decision": {"type": "noul", "instructions": "..."}}}
200 -> {"model": "jev-1.14.0", "answers": {"decision": {"type": "noul", "noul": 0.83}},
        "usage": {"input_tokens": 40, "output_tokens": 1}}
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from miniroom.config.http_client import http_client
from miniroom.rooms.judge_context import JudgeRequest
from miniroom.rooms.judgment import Failure

KEY_VARIABLE = "TYPESAFE_API_KEY"
BASE_URL_VARIABLE = "TYPESAFE_BASE_URL"
MODEL_VARIABLE = "TYPESAFE_DEFAULT_MODEL"
DEFAULT_BASE_URL = "https://api.typesafe.ai"
DEFAULT_MODEL = "jev-latest"
PATH = "/v1/systemone"
QUESTION = "decision"


@dataclass(frozen=True, slots=True)
class TypesafeAnswer:
    """P(yes), or why there is none; `detail` says what went wrong (never the key or the request)."""

    probability: float | None
    model: str
    failure: Failure | None = None
    detail: str = ""
    tokens_in: int = 0
    tokens_out: int = 0


class TypesafeClient:
    """Asks System One; `env` holds TYPESAFE_API_KEY (and optionally the base URL and model)."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env

    @property
    def model(self) -> str:
        return self.env.get(MODEL_VARIABLE) or DEFAULT_MODEL

    @property
    def url(self) -> str:
        return (self.env.get(BASE_URL_VARIABLE) or DEFAULT_BASE_URL).rstrip("/") + PATH

    async def ask(self, request: JudgeRequest, seconds: float) -> TypesafeAnswer:
        key = self.env.get(KEY_VARIABLE)
        if not key:
            detail = f"{KEY_VARIABLE} is not set in the environment or the .env beside config.yaml"
            return TypesafeAnswer(None, self.model, Failure.MISSING_CREDENTIALS, detail)
        body = {
            "state": request.state(),
            "model": self.model,
            "questions": {QUESTION: {"type": "noul", "instructions": request.question}},
        }
        try:
            async with asyncio.timeout(seconds), http_client(seconds) as client:
                reply = await client.post(self.url, json=body, headers={"Authorization": f"Bearer {key}"})
        except TimeoutError:
            return TypesafeAnswer(None, self.model, Failure.TIMEOUT, f"no answer within {seconds:g} s")
        except httpx.HTTPError as error:
            detail = f"{type(error).__name__} from {self.url}"
            return TypesafeAnswer(None, self.model, Failure.PROVIDER_ERROR, detail)
        if reply.status_code != 200:
            detail = f"HTTP {reply.status_code} from {self.url}"
            return TypesafeAnswer(None, self.model, Failure.PROVIDER_ERROR, detail)
        return self._read(reply)

    def _read(self, reply: httpx.Response) -> TypesafeAnswer:
        try:
            data: Any = reply.json()
            probability = data["answers"][QUESTION]["noul"]
            usage = data.get("usage") or {}
            model = str(data.get("model") or self.model)
            tokens = int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))
        except (ValueError, KeyError, TypeError, AttributeError):
            return TypesafeAnswer(None, self.model, Failure.MALFORMED, "the answer is not System One's shape")
        if isinstance(probability, bool) or not isinstance(probability, int | float):
            return TypesafeAnswer(None, model, Failure.MALFORMED, "the answer's noul is not a number")
        if not (math.isfinite(probability) and 0 <= probability <= 1):
            return TypesafeAnswer(None, model, Failure.MALFORMED, "the answer's noul is not in [0, 1]")
        return TypesafeAnswer(float(probability), model, None, "", *tokens)
