"""The pydantic schema of `models.json`: built only when a models.json file is read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from miniroom.config.problems import camel_key, invalid
from miniroom.llm.http_values import base_url_problem, header_name_problem, header_value_problem
from miniroom.llm.model import Api

PositiveInt = Annotated[int, Field(gt=0)]
Price = Annotated[float, Field(ge=0)]
NonEmptyStr = Annotated[str, Field(min_length=1)]


def _checked(problem_of: Callable[[str], str | None]) -> AfterValidator:
    """A validator refusing the text `problem_of` finds a problem with; no request could carry it."""

    def check(text: str) -> str:
        problem = problem_of(text)
        if problem:
            raise invalid("{problem}", problem=problem)
        return text

    return AfterValidator(check)


BaseUrl = Annotated[str, Field(min_length=1), _checked(base_url_problem)]
HeaderName = Annotated[str, _checked(header_name_problem)]
HeaderValue = Annotated[str, _checked(header_value_problem)]
Headers = dict[HeaderName, HeaderValue]


class _Entry(BaseModel):
    model_config = ConfigDict(alias_generator=camel_key, extra="forbid", strict=True, frozen=True)


class CostEntry(_Entry):
    """US dollars per million tokens."""

    input: Price = 0.0
    output: Price = 0.0
    cache_read: Price = 0.0
    cache_write: Price = 0.0


class ModelOverrideEntry(_Entry):
    """Changes to a template's model; every field is optional."""

    name: NonEmptyStr | None = None
    reasoning: bool | None = None
    input: list[Literal["text", "image"]] | None = None
    context_window: PositiveInt | None = None
    max_tokens: PositiveInt | None = None
    cost: CostEntry | None = None
    headers: Headers | None = None
    # Pi options miniroom accepts so a Pi file loads unchanged, but does not use.
    compat: dict[str, Any] | None = None
    thinking_level_map: dict[str, Any] | None = None
    input_limits: dict[str, Any] | None = None
    prompt_cache: dict[str, Any] | None = None
    sampling_params: dict[str, Any] | None = None


class ModelEntry(ModelOverrideEntry):
    id: NonEmptyStr
    api: Api | None = None
    base_url: BaseUrl | None = None


class ProviderEntry(_Entry):
    name: str | None = None
    base_url: BaseUrl | None = None
    api: Api | None = None
    api_key: NonEmptyStr | None = None
    auth_header: bool | None = None
    headers: Headers | None = None
    compat: dict[str, Any] | None = None
    models: list[ModelEntry] | None = None
    model_overrides: dict[str, ModelOverrideEntry] | None = None

    def find_model(self, model_id: str) -> ModelEntry | None:
        """The last definition of `model_id` wins, as in Pi's upsert."""
        matches = [model for model in self.models or () if model.id == model_id]
        return matches[-1] if matches else None

    def find_override(self, model_id: str) -> ModelOverrideEntry | None:
        return (self.model_overrides or {}).get(model_id)


class ModelsFile(_Entry):
    providers: dict[str, ProviderEntry]
