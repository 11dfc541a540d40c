"""`models.json` in Pi's format: loading, validation with errors for people, and `$VAR` value resolution."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from miniroom.config.problems import Wording, at_most, findings, key_path
from miniroom.config.settings_file import SettingsFileError, read_settings_text
from miniroom.llm.model import Api
from miniroom.llm.model_name import ModelConfigError

MODELS_JSON = "models.json"
_MAX_REPORTED_ERRORS = 5

PositiveInt = Annotated[int, Field(gt=0)]
Price = Annotated[float, Field(ge=0)]
NonEmptyStr = Annotated[str, Field(min_length=1)]


class _Entry(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, extra="forbid", strict=True, frozen=True)


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
    headers: dict[str, str] | None = None
    # Pi options miniroom accepts so a Pi file loads unchanged, but does not use.
    compat: dict[str, Any] | None = None
    thinking_level_map: dict[str, Any] | None = None
    input_limits: dict[str, Any] | None = None
    prompt_cache: dict[str, Any] | None = None
    sampling_params: dict[str, Any] | None = None


class ModelEntry(ModelOverrideEntry):
    id: NonEmptyStr
    api: Api | None = None
    base_url: NonEmptyStr | None = None


class ProviderEntry(_Entry):
    name: str | None = None
    base_url: NonEmptyStr | None = None
    api: Api | None = None
    api_key: NonEmptyStr | None = None
    auth_header: bool | None = None
    headers: dict[str, str] | None = None
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


def load_models_json(path: Path) -> ModelsFile | None:
    """Load and validate `path`; None when it does not exist, `ModelConfigError` when it is broken."""
    try:
        text = read_settings_text(path)
    except FileNotFoundError:
        return None
    except SettingsFileError as exc:
        raise ModelConfigError(str(exc.problem)) from None
    try:
        # orjson refuses what the json module crashes or stalls on: nesting past 1,024 levels, huge numbers.
        data = orjson.loads(strip_json_comments(text))
    except orjson.JSONDecodeError as exc:
        raise ModelConfigError(
            f"{path}:{exc.lineno}: not valid JSON: {exc.msg} (column {exc.colno})."
        ) from None
    try:
        return ModelsFile.model_validate(data)
    except ValidationError as exc:
        raise ModelConfigError(_describe_errors(path, exc)) from None


# A string (kept whole, escapes included), a // comment, or a /* */ comment (to the end if never closed).
_STRING_OR_COMMENT = re.compile(r'"(?:[^"\\]|\\.)*"?|//[^\n]*|/\*.*?(?:\*/|\Z)', re.S)
_NOT_NEWLINE = re.compile(r"[^\n]")


def strip_json_comments(text: str) -> str:
    """Blank out // and /* */ comments (Pi allows them), keeping every line and column in place."""

    def blank(found: re.Match[str]) -> str:
        part = found[0]
        return part if part.startswith('"') else _NOT_NEWLINE.sub(" ", part)

    return _STRING_OR_COMMENT.sub(blank, text)


def _unknown_key(key: str, allowed: Sequence[str]) -> str:
    return f"unknown key; the keys allowed here are: {', '.join(allowed)}"


_WORDING = Wording(
    unknown_key=_unknown_key,
    words={"mapping": "must be a JSON object", "list": "must be a JSON array", "text": "must be a string"},
)


def _describe_errors(path: Path, exc: ValidationError) -> str:
    lines = [f"  - {key_path(found.loc)}: {found.message}" for found in findings(exc, ModelsFile, _WORDING)]
    shown = at_most(lines, _MAX_REPORTED_ERRORS, lambda count: f"  … and {count} more")
    return f"{path} is not a valid models.json (Pi's format):\n" + "\n".join(shown)


def env_value(env: Mapping[str, str], name: str) -> str | None:
    """The variable's value; an empty (or blank) value counts as unset."""
    value = env.get(name, "").strip()
    return value or None


@dataclass(frozen=True)
class ConfigValue:
    value: str | None  # None: it names an environment variable that is not set
    variable: str | None = None  # the environment variable it names, if any


_ENV_NAME = re.compile(r"[A-Z_][A-Z0-9_]*")
_ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)")


def resolve_config_value(raw: str, env: Mapping[str, str], where: str) -> ConfigValue:
    """Pi's value forms: `$VAR` / `${VAR}`, the NAME of an environment variable, or a literal."""
    if raw.startswith("!"):
        raise ModelConfigError(
            f'{where} runs a shell command ("!…"), which miniroom does not support: '
            'put the secret in an environment variable and write "$NAME" instead.'
        )
    reference = _ENV_REFERENCE.fullmatch(raw)
    if reference:
        name = reference[1] or reference[2]
        return ConfigValue(env_value(env, name), name)
    if _ENV_NAME.fullmatch(raw):
        return ConfigValue(env_value(env, raw), raw)
    return ConfigValue(raw)


def resolve_headers(headers: Mapping[str, str], env: Mapping[str, str], where: str) -> dict[str, str]:
    """Header values in Pi's forms; a bare NAME that is not set stays literal, an unset `$VAR` is an error."""
    resolved: dict[str, str] = {}
    for header, raw in headers.items():
        value = resolve_config_value(raw, env, f"{where}.headers.{header}")
        if value.value is not None:
            resolved[header] = value.value
        elif raw.startswith("$"):
            raise ModelConfigError(
                f"{where}.headers.{header} uses ${value.variable}, which is not set: "
                "set the variable or remove the header."
            )
        else:
            resolved[header] = raw
    return resolved
