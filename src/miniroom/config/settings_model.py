"""The base of every YAML settings file's shape, and pydantic's errors phrased for those files."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, ValidationError, model_validator
from pydantic_core import ErrorDetails

from miniroom.config.problems import (
    Problem,
    Wording,
    camel_key,
    describe_value,
    did_you_mean,
    findings,
    invalid,
    phrase,
)

if TYPE_CHECKING:
    from miniroom.config.yaml_source import YamlSource


MAX_WHOLE = 2**31 - 1  # beyond it a count or a timeout is a typo, and some provider APIs overflow


def positive_whole_or_none(value: object) -> object:
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value > MAX_WHOLE:
        raise invalid("must be at most {most}, got {got}", most=MAX_WHOLE, got=describe_value(value))
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    raise invalid("must be a whole number above zero, got {got}", got=describe_value(value))


OptionalPositiveWhole = Annotated[int | None, BeforeValidator(positive_whole_or_none)]


def without_nul(value: str) -> str:
    if "\0" in value:
        raise invalid(
            "holds a NUL character (\\0), which no command, argument or variable can carry: remove it"
        )
    return value


# A command, an argument or an environment variable of a process miniroom starts: the system refuses a NUL in
# any of them, so it is refused here, where the file and line can be named.
ProcessText = Annotated[str, AfterValidator(without_nul)]


class SettingsModel(BaseModel):
    """The base of every file shape: camelCase keys, no unknown keys, no silent type coercion."""

    model_config = ConfigDict(extra="forbid", strict=True, alias_generator=camel_key, frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _blank_means_unset(cls, data: Any) -> Any:
        # An empty value never zeroes a setting: it counts as unset and the default answers.
        if isinstance(data, dict):
            return {k: None if isinstance(v, str) and not v.strip() else v for k, v in data.items()}
        return data


def _unknown_key(key: str, valid: Sequence[str]) -> str:
    if not valid:
        return "unknown key: delete it"
    hint = did_you_mean(key, valid)
    return f"unknown key: {hint + ' ' if hint else ''}the valid keys are {', '.join(valid)}"


WORDING = Wording(
    unknown_key=_unknown_key,
    words={
        "missing": "is required: add it",
        "list": "must be a list (one `- item` per line)",
        "mapping": "must be a mapping of keys to values",
    },
    fallback="{msg}",
    got=", got {got}",
    show=describe_value,
    exact={"literal_error": "must be one of {expected}, got {got}"},
)


def error_message(item: ErrorDetails, model: type[BaseModel] | None = None) -> str:
    """Pydantic's error as a person's message; `model` (where it was validated) lists the valid keys."""
    return phrase(item, WORDING, model)


def validation_problems(
    source: YamlSource, error: ValidationError, model: type[BaseModel], prefix: Sequence[str | int] = ()
) -> list[Problem]:
    """One Problem per pydantic error, located in `source` under `prefix` (where `model` was validated)."""
    found = findings(error, model, WORDING, lambda loc: source.written.get((*prefix, *loc)))
    return [source.problem((*prefix, *finding.loc), finding.message) for finding in found]


def keyed_section(source: YamlSource, key: str, items: str, problems: list[Problem]) -> dict[Any, Any]:
    """The mapping under `key`, the one key a file holds at its root (`items`: what the mapping's keys name,
    e.g. "profile"); any other shape is added to `problems`, and an empty mapping returned."""
    data = source.data
    if data is None:
        return {}
    if not isinstance(data, dict):
        message = f"the file must be a mapping with a `{key}:` key, got {describe_value(data)}"
        problems.append(source.problem((), message))
        return {}
    for other in data:
        if other != key:
            problems.append(
                source.problem((str(other),), f"unknown key: the file holds only `{key}:` at its root")
            )
    section = data.get(key)
    if section is None:
        return {}
    if not isinstance(section, dict):
        message = f"must be a mapping of {items} names to settings, got {describe_value(section)}"
        problems.append(source.problem((key,), message))
        return {}
    return section
