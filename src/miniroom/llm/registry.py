"""Resolve a model name into a `Model`: templates < MINI_* environment < models.json, each a layer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from miniroom.llm.http_values import base_url_problem, header_value_problem
from miniroom.llm.model import API_NAMES, AUTH_TYPES, THINKING_LEVELS, Api, AuthType, Model, ThinkingLevel
from miniroom.llm.model_name import (
    DEFAULT_MODEL_NAME,
    MissingApiKeyError,
    ModelConfigError,
    ModelName,
    parse_model_name,
)
from miniroom.llm.models_json import (
    MODELS_JSON,
    env_value,
    load_models_json,
    resolve_config_value,
    resolve_headers,
)
from miniroom.llm.providers import KnownModel, ProviderTemplate, default_auth, get_template, known_providers

if TYPE_CHECKING:
    from miniroom.llm.models_json_schema import ModelEntry, ModelOverrideEntry, ProviderEntry

__all__ = [
    "MissingApiKeyError",
    "ModelConfigError",
    "ModelName",
    "agent_dir_from_env",
    "known_providers",
    "resolve_model",
]

CUSTOM_PROVIDER = "custom"

_Choice = TypeVar("_Choice", bound=str)


def agent_dir_from_env(env: Mapping[str, str]) -> Path:
    """MINI_AGENT_DIR, or ~/.mini."""
    configured = env_value(env, "MINI_AGENT_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".mini"


def resolve_model(
    name: str | None, env: Mapping[str, str], agent_dir: Path
) -> tuple[Model, ThinkingLevel | None]:
    """Resolve `name` (else MODEL, else the default model) into a Model and its `:thinking` suffix."""
    text = name if name is not None else env_value(env, "MODEL") or DEFAULT_MODEL_NAME
    overrides = _EnvOverrides.read(env)
    default_provider = env_value(env, "MINI_PROVIDER") or (CUSTOM_PROVIDER if overrides.base_url else None)
    parsed = parse_model_name(text, default_provider)
    models_path = agent_dir / MODELS_JSON
    models_file = load_models_json(models_path)
    entry = models_file.providers.get(parsed.provider) if models_file else None
    source = _Source(parsed, get_template(parsed.provider), entry, models_path, overrides, env)
    return source.build(), parsed.thinking


@dataclass(frozen=True)
class _EnvOverrides:
    base_url: str | None
    api: Api | None
    auth: AuthType | None
    api_key: str | None

    @classmethod
    def read(cls, env: Mapping[str, str]) -> _EnvOverrides:
        return cls(
            base_url=env_value(env, "MINI_BASE_URL"),
            api=_choice(env, "MINI_API", API_NAMES),
            auth=_choice(env, "MINI_AUTH", AUTH_TYPES),
            api_key=env_value(env, "MINI_API_KEY"),
        )


def _choice(env: Mapping[str, str], variable: str, choices: tuple[_Choice, ...]) -> _Choice | None:
    value = env_value(env, variable)
    if value is None:
        return None
    for choice in choices:
        if choice == value:
            return choice
    raise ModelConfigError(f'{variable}="{value}" is not valid: use {" or ".join(choices)}.')


@dataclass(frozen=True)
class _Source:
    """Everything known about one model name; `build` layers it into a Model."""

    name: ModelName
    template: ProviderTemplate | None
    entry: ProviderEntry | None
    models_path: Path
    overrides: _EnvOverrides
    env: Mapping[str, str]

    def build(self) -> Model:
        self._check_provider_is_known()
        self._check_thinking_suffix()
        model_entry = self.entry.find_model(self.name.model_id) if self.entry else None
        api = self._api(model_entry)
        details = self._details(model_entry)
        return Model(
            id=self.name.model_id,
            provider=self.name.provider,
            api=api,
            base_url=self._base_url(model_entry, api),
            auth=self._auth(api),
            api_key=self._api_key(),
            name=details.name,
            reasoning=details.reasoning,
            accepts_images=details.accepts_images,
            context_window=details.context_window,
            max_tokens=details.max_tokens,
            cost=details.cost,
            headers=self._headers(model_entry),
        )

    @property
    def where(self) -> str:
        return f"{self.models_path}: providers.{self.name.provider}"

    def _check_provider_is_known(self) -> None:
        if self.template or self.entry:
            return
        provider = self.name.provider
        if not self.overrides.base_url:
            raise ModelConfigError(
                f'Unknown provider "{provider}" in model "{self.name.ref}". '
                f"Known providers: {', '.join(known_providers())}. "
                f"For another provider set MINI_BASE_URL and MINI_API, or add it to {self.models_path}."
            )
        if not self.overrides.api:
            raise ModelConfigError(
                f'Provider "{provider}" has no ready template, so MINI_API must say which protocol '
                f"MINI_BASE_URL speaks: set MINI_API to {' or '.join(API_NAMES)}."
            )

    def _check_thinking_suffix(self) -> None:
        """A `:tag` that is not a thinking level stays part of the model id only where the provider may have
        such a model: not when it knows the model without the tag and not with it (`claude-sonnet-5:hgh`)."""
        model_id = self.name.model_id
        head, colon, tag = model_id.rpartition(":")
        if not colon or not head or self._knows(model_id) or not self._knows(head):
            return
        provider = self.name.provider
        raise ModelConfigError(
            f'The model name "{self.name.ref}" ends with ":{tag}", which is not a thinking level, and '
            f'{provider} has no model "{model_id}": use one of {", ".join(THINKING_LEVELS)} '
            f'(e.g. "{provider}/{head}:high"), or add the model to {self.models_path}.'
        )

    def _knows(self, model_id: str) -> bool:
        if self.template and model_id in self.template.models:
            return True
        return bool(self.entry and (self.entry.find_model(model_id) or self.entry.find_override(model_id)))

    def _api(self, model_entry: ModelEntry | None) -> Api:
        candidates = (
            model_entry.api if model_entry else None,
            self.entry.api if self.entry else None,
            self.overrides.api,
            self.template.api if self.template else None,
        )
        for api in candidates:
            if api:
                return api
        raise ModelConfigError(
            f'{self.where} sets no "api": add "api": "{API_NAMES[1]}" (or "{API_NAMES[0]}") there, '
            "or set MINI_API."
        )

    def _base_url(self, model_entry: ModelEntry | None, api: Api) -> str:
        given = (
            (
                model_entry.base_url if model_entry else None,
                f"{self.where}, model {self.name.model_id}: baseUrl",
            ),
            (self.entry.base_url if self.entry else None, f"{self.where}.baseUrl"),
            (self.overrides.base_url, "MINI_BASE_URL"),
        )
        for url, origin in given:
            if url:
                return _normalize_base_url(url, api, origin)
        if self.template:
            return self.template.base_url
        raise ModelConfigError(f'{self.where} sets no "baseUrl": add it there, or set MINI_BASE_URL.')

    def _auth(self, api: Api) -> AuthType:
        if self.entry and self.entry.auth_header:
            return "bearer"
        if self.overrides.auth:
            return self.overrides.auth
        if self.template and self.template.api == api:
            return self.template.auth
        return default_auth(api)

    def _api_key(self) -> str:
        looked_at: list[str] = []
        if self.entry and self.entry.api_key:
            configured = resolve_config_value(self.entry.api_key, self.env, f"{self.where}.apiKey")
            source = configured.variable or f"{self.where}.apiKey"
            if configured.value:
                return self._sendable_key(configured.value, source)
            looked_at.append(f"{configured.variable} (named by apiKey in {self.models_path})")
        if self.overrides.api_key:
            return self._sendable_key(self.overrides.api_key, "MINI_API_KEY")
        looked_at.append("MINI_API_KEY")
        if self.template:
            key = env_value(self.env, self.template.key_variable)
            if key:
                return self._sendable_key(key, self.template.key_variable)
            looked_at.append(self.template.key_variable)
        if len(looked_at) == 1:
            problem, fix = f"{looked_at[0]} is not set", "Set it to your API key."
        else:
            problem, fix = f"none of {', '.join(looked_at)} is set", "Set one of them to your API key."
        raise MissingApiKeyError(f"No API key for {self.name.ref}: {problem}. {fix}")

    def _sendable_key(self, key: str, source: str) -> str:
        """The key, which travels in a header: one that cannot is a mistake to fix, not to send and retry."""
        problem = header_value_problem(key, secret=True)
        if problem:
            raise ModelConfigError(
                f"The API key for {self.name.ref} in {source} {problem} (the key is not shown): set it again "
                "as copied from the provider."
            )
        return key

    def _details(self, model_entry: ModelEntry | None) -> KnownModel:
        if model_entry:
            # A models.json definition replaces the template's model entirely, as in Pi.
            return _apply_override(
                KnownModel(self.name.model_id, self.name.model_id, reasoning=False), model_entry
            )
        known = self.template.models.get(self.name.model_id) if self.template else None
        base = known or KnownModel(self.name.model_id, self.name.model_id)
        override = self.entry.find_override(self.name.model_id) if self.entry else None
        return _apply_override(base, override) if override else base

    def _headers(self, model_entry: ModelEntry | None) -> tuple[tuple[str, str], ...]:
        """Provider headers, then the model's (its definition, or else its override); later ones win."""
        if not self.entry:
            return ()
        specific = model_entry or self.entry.find_override(self.name.model_id)
        merged: dict[str, tuple[str, str]] = {}
        model_where = f"{self.where} (model {self.name.model_id})"
        for layer, where in (
            (self.entry.headers, self.where),
            (specific.headers if specific else None, model_where),
        ):
            for header, value in resolve_headers(layer or {}, self.env, where).items():
                merged[header.lower()] = (header, value)  # HTTP header names are case-insensitive
        return tuple(merged.values())


def _apply_override(base: KnownModel, override: ModelOverrideEntry) -> KnownModel:
    cost = base.cost
    if override.cost:  # a partial cost changes only the prices it gives (the names match ModelCost's)
        given = {price: getattr(override.cost, price) for price in override.cost.model_fields_set}
        cost = replace(cost, **given)
    return KnownModel(
        id=base.id,
        name=override.name or base.name,
        context_window=override.context_window or base.context_window,
        max_tokens=override.max_tokens or base.max_tokens,
        reasoning=base.reasoning if override.reasoning is None else override.reasoning,
        accepts_images=base.accepts_images if override.input is None else "image" in override.input,
        cost=cost,
    )


def _normalize_base_url(url: str, api: Api, origin: str) -> str:
    """Strip a trailing "/"; Anthropic's convention also drops a trailing "/v1" (the client adds it)."""
    problem = base_url_problem(url)
    if problem:
        raise ModelConfigError(f"{origin} {problem}.")
    url = url.rstrip("/")
    if api == "anthropic-messages" and url.endswith("/v1"):
        url = url.removesuffix("/v1")
    return url
