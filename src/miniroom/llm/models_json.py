"""`models.json` in Pi's format: loading, validation with errors for people, and `$VAR` value resolution."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from miniroom.config.problems import Problem, Wording, at_most, findings, key_path
from miniroom.config.settings_file import SettingsFileError, read_settings_text
from miniroom.llm.http_values import header_value_problem
from miniroom.llm.model_name import ModelConfigError

if TYPE_CHECKING:
    from pydantic import ValidationError

    from miniroom.llm.models_json_schema import ModelsFile

MODELS_JSON = "models.json"
_MAX_REPORTED_ERRORS = 5


def load_models_json(path: Path) -> ModelsFile | None:
    """Load and validate `path`; None when it does not exist, `ModelConfigError` when it is broken."""
    found, data, problem = _json_of(path)
    if problem:
        raise ModelConfigError(str(problem))
    if not found:
        return None
    # The schema's pydantic models take a while to build: only a run with a models.json file pays for them.
    from pydantic import ValidationError

    from miniroom.llm.models_json_schema import ModelsFile

    try:
        return ModelsFile.model_validate(data)
    except ValidationError as exc:
        raise ModelConfigError(_describe_errors(path, exc)) from None


def check_models_file(path: Path) -> list[Problem]:
    """Everything wrong in a models.json, one problem per finding (for `config check`); none when missing."""
    found, data, problem = _json_of(path)
    if problem or not found:
        return [problem] if problem else []
    from pydantic import ValidationError

    from miniroom.llm.models_json_schema import ModelsFile

    try:
        ModelsFile.model_validate(data)
    except ValidationError as exc:
        return [Problem(path, None, key_path(f.loc), f.message) for f in findings(exc, ModelsFile, _WORDING)]
    return []


def _json_of(path: Path) -> tuple[bool, Any, Problem | None]:
    """Whether `path` exists, its JSON value, and the problem that keeps it from being read."""
    try:
        text = read_settings_text(path)
    except FileNotFoundError:
        return False, None, None
    except SettingsFileError as exc:
        return True, None, exc.problem
    try:
        # orjson refuses what the json module crashes or stalls on: nesting past 1,024 levels, huge numbers.
        return True, orjson.loads(strip_json_comments(text)), None
    except orjson.JSONDecodeError as exc:
        return True, None, Problem(path, exc.lineno, "", f"not valid JSON: {exc.msg} (column {exc.colno}).")


# A string (kept whole, escapes included), a // comment, or a /* */ comment (to the end if never closed).
# As text, compiled (and cached) by `re` when a models.json is read, not at every start.
_STRING_OR_COMMENT = r'"(?:[^"\\]|\\.)*"?|//[^\n]*|/\*.*?(?:\*/|\Z)'


def strip_json_comments(text: str) -> str:
    """Blank out // and /* */ comments (Pi allows them), keeping every line and column in place."""

    def blank(found: re.Match[str]) -> str:
        part = found[0]
        return part if part.startswith('"') else re.sub(r"[^\n]", " ", part)

    return re.sub(_STRING_OR_COMMENT, blank, text, flags=re.S)


def _unknown_key(key: str, allowed: Sequence[str]) -> str:
    return f"unknown key; the keys allowed here are: {', '.join(allowed)}"


_WORDING = Wording(
    unknown_key=_unknown_key,
    words={"mapping": "must be a JSON object", "list": "must be a JSON array", "text": "must be a string"},
)


def _describe_errors(path: Path, exc: ValidationError) -> str:
    from miniroom.llm.models_json_schema import ModelsFile

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
            problem = header_value_problem(value.value, secret=True)
            if problem:
                named = f"the variable {value.variable} it names" if value.variable else "its value"
                raise ModelConfigError(f"{where}.headers.{header}: {named} {problem}: fix the value.")
            resolved[header] = value.value
        elif raw.startswith("$"):
            raise ModelConfigError(
                f"{where}.headers.{header} uses ${value.variable}, which is not set: "
                "set the variable or remove the header."
            )
        else:
            resolved[header] = raw
    return resolved
