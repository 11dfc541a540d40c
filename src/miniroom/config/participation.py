"""`config.yaml` settings of agents that judge when to speak: participation, mid-turn, judgment backends."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_THRESHOLD = 0.8  # not calibrated on representative conversations


class _Strict(BaseModel):
    # YAML reads .inf and .nan as floats: a judge never timed out or a debounce never ending is a mistake.
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class LlmJudgment(_Strict):
    """A separate decision model: an alias under `models:`, asked with no tools, prompt or memory."""

    provider: Literal["llm"]
    model: str
    timeout_seconds: float = Field(default=5.0, gt=0)


class TypesafeJudgment(_Strict):
    """System One (TypeSafe); approves at or above `threshold`. Needs TYPESAFE_API_KEY."""

    provider: Literal["typesafe"]
    threshold: float = Field(default=DEFAULT_THRESHOLD, ge=0, le=1)
    timeout_seconds: float = Field(default=1.5, gt=0)


JudgmentConfig = Annotated[LlmJudgment | TypesafeJudgment, Field(discriminator="provider")]


class ParticipationConfig(_Strict):
    """Adaptive participation: an agent already in a multi-human thread may judge untagged messages."""

    debounce_seconds: float = Field(default=3.0, ge=0)
    instructions: str | None = None
    decline_reaction: str | None = None
    judgment: JudgmentConfig | None = None


class MidTurnConfig(_Strict):
    """Mid-turn coalescing: a judge decides whether messages sent mid-task can wait until it ends."""

    instructions: str | None = None
    defer_reaction: str | None = None
    judgment: JudgmentConfig | None = None
