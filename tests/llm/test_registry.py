"""Resolving a model from the environment alone: templates, MINI_* overrides, defaults and key errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from miniroom.llm.model import Model, ThinkingLevel
from miniroom.llm.registry import ModelConfigError, agent_dir_from_env, known_providers, resolve_model

SECRET = "sk-very-secret-value-42"


def resolve(name: str | None, env: dict[str, str], agent_dir: Path) -> Model:
    model, _ = resolve_model(name, env, agent_dir)
    return model


def error_of(name: str | None, env: dict[str, str], agent_dir: Path) -> str:
    with pytest.raises(ModelConfigError) as caught:
        resolve_model(name, env, agent_dir)
    return str(caught.value)


def test_known_providers_are_the_ready_templates() -> None:
    assert known_providers() == [
        "anthropic",
        "deepseek",
        "zai",
        "bigmodel",
        "openrouter",
        "xai",
        "minimax",
        "moonshot",
        "openai",
        "opencode-go",
        "opencode-zen",
    ]


TEMPLATES = [
    ("anthropic", "anthropic-messages", "https://api.anthropic.com", "api-key", "ANTHROPIC_API_KEY"),
    ("deepseek", "openai-completions", "https://api.deepseek.com/v1", "bearer", "DEEPSEEK_API_KEY"),
    ("zai", "anthropic-messages", "https://api.z.ai/api/anthropic", "bearer", "ZAI_API_KEY"),
    (
        "bigmodel",
        "anthropic-messages",
        "https://open.bigmodel.cn/api/anthropic",
        "bearer",
        "BIGMODEL_API_KEY",
    ),
    ("openrouter", "openai-completions", "https://openrouter.ai/api/v1", "bearer", "OPENROUTER_API_KEY"),
    ("xai", "openai-completions", "https://api.x.ai/v1", "bearer", "XAI_API_KEY"),
    ("minimax", "anthropic-messages", "https://api.minimax.io/anthropic", "api-key", "MINIMAX_API_KEY"),
    ("moonshot", "openai-completions", "https://api.moonshot.ai/v1", "bearer", "MOONSHOT_API_KEY"),
    ("openai", "openai-completions", "https://api.openai.com/v1", "bearer", "OPENAI_API_KEY"),
    ("opencode-go", "openai-completions", "https://opencode.ai/zen/go/v1", "bearer", "OPENCODE_API_KEY"),
    ("opencode-zen", "openai-completions", "https://opencode.ai/zen/v1", "bearer", "OPENCODE_API_KEY"),
]


@pytest.mark.parametrize(("provider", "api", "base_url", "auth", "key_variable"), TEMPLATES)
def test_templates(
    provider: str, api: str, base_url: str, auth: str, key_variable: str, tmp_path: Path
) -> None:
    model = resolve(f"{provider}/some-model", {key_variable: SECRET}, tmp_path)
    assert (model.provider, model.id, model.api, model.base_url, model.auth) == (
        provider,
        "some-model",
        api,
        base_url,
        auth,
    )
    assert model.api_key == SECRET


def test_nothing_set_gives_the_default_model(tmp_path: Path) -> None:
    model, thinking = resolve_model(None, {"DEEPSEEK_API_KEY": SECRET}, tmp_path)
    assert (model.ref, model.api, thinking) == ("deepseek/deepseek-v4-flash", "openai-completions", None)
    assert (model.context_window, model.max_tokens, model.reasoning) == (1_048_576, 384_000, True)
    assert (model.cost.input, model.cost.output, model.cost.cache_read) == (0.14, 0.28, 0.0028)


def test_model_variable_is_used_when_no_name_is_given(tmp_path: Path) -> None:
    env = {"MODEL": "anthropic/claude-sonnet-5:low", "ANTHROPIC_API_KEY": SECRET}
    model, thinking = resolve_model(None, env, tmp_path)
    assert (model.ref, thinking) == ("anthropic/claude-sonnet-5", "low")


def test_the_name_wins_over_the_model_variable(tmp_path: Path) -> None:
    env = {"MODEL": "anthropic/claude-sonnet-5", "OPENAI_API_KEY": SECRET}
    assert resolve("openai/gpt-5", env, tmp_path).ref == "openai/gpt-5"


@pytest.mark.parametrize("level", ["off", "minimal", "low", "medium", "high", "xhigh", "max"])
def test_the_thinking_suffix_is_returned(level: ThinkingLevel, tmp_path: Path) -> None:
    _, thinking = resolve_model(f"openai/gpt-5:{level}", {"OPENAI_API_KEY": SECRET}, tmp_path)
    assert thinking == level


def test_a_known_model_carries_its_table_entry(tmp_path: Path) -> None:
    model = resolve("anthropic/claude-sonnet-5", {"ANTHROPIC_API_KEY": SECRET}, tmp_path)
    assert (model.name, model.context_window, model.max_tokens, model.accepts_images) == (
        "Claude Sonnet 5",
        1_000_000,
        128_000,
        True,
    )
    assert (model.cost.input, model.cost.output, model.cost.cache_read, model.cost.cache_write) == (
        3.0,
        15.0,
        0.3,
        3.75,
    )


def test_an_unknown_model_of_a_known_provider_gets_the_defaults(tmp_path: Path) -> None:
    model = resolve("openrouter/qwen/qwen3-coder:high", {"OPENROUTER_API_KEY": SECRET}, tmp_path)
    assert (model.id, model.name, model.context_window, model.max_tokens) == (
        "qwen/qwen3-coder",
        "qwen/qwen3-coder",
        128_000,
        32_000,
    )
    assert (model.cost.input, model.cost.output, model.headers) == (0.0, 0.0, ())


def test_mini_api_key_wins_over_the_template_variable(tmp_path: Path) -> None:
    env = {"MINI_API_KEY": "sk-mini", "ANTHROPIC_API_KEY": "sk-anthropic"}
    assert resolve("anthropic/claude-sonnet-5", env, tmp_path).api_key == "sk-mini"


def test_mini_base_url_overrides_the_template(tmp_path: Path) -> None:
    env = {"MINI_BASE_URL": "http://127.0.0.1:8080/v1/", "OPENAI_API_KEY": SECRET}
    assert resolve("openai/gpt-5", env, tmp_path).base_url == "http://127.0.0.1:8080/v1"


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("https://proxy.example.com/v1", "https://proxy.example.com"),
        ("https://proxy.example.com/v1/", "https://proxy.example.com"),
        ("https://proxy.example.com/", "https://proxy.example.com"),
        ("https://proxy.example.com/anthropic", "https://proxy.example.com/anthropic"),
    ],
)
def test_anthropic_base_urls_drop_a_trailing_v1(given: str, expected: str, tmp_path: Path) -> None:
    env = {"MINI_BASE_URL": given, "ANTHROPIC_API_KEY": SECRET}
    assert resolve("anthropic/claude-sonnet-5", env, tmp_path).base_url == expected


def test_openai_base_urls_keep_their_version_path(tmp_path: Path) -> None:
    env = {"MINI_BASE_URL": "https://gateway.example.com/api/v4", "XAI_API_KEY": SECRET}
    assert resolve("xai/grok-5", env, tmp_path).base_url == "https://gateway.example.com/api/v4"


def test_a_base_url_without_scheme_is_an_error(tmp_path: Path) -> None:
    message = error_of(
        "openai/gpt-5", {"MINI_BASE_URL": "api.example.com/v1", "OPENAI_API_KEY": SECRET}, tmp_path
    )
    assert "MINI_BASE_URL must start with http:// or https://" in message


def test_mini_api_switches_the_protocol_and_its_default_auth(tmp_path: Path) -> None:
    env = {
        "MINI_API": "anthropic-messages",
        "MINI_BASE_URL": "https://api.deepseek.com/anthropic",
        "DEEPSEEK_API_KEY": SECRET,
    }
    model = resolve("deepseek/deepseek-v4-flash", env, tmp_path)
    assert (model.api, model.base_url, model.auth) == (
        "anthropic-messages",
        "https://api.deepseek.com/anthropic",
        "api-key",
    )


def test_mini_auth_overrides_the_template(tmp_path: Path) -> None:
    env = {"MINI_AUTH": "bearer", "ANTHROPIC_API_KEY": SECRET}
    assert resolve("anthropic/claude-sonnet-5", env, tmp_path).auth == "bearer"


def test_a_bad_mini_api_lists_the_two_protocols(tmp_path: Path) -> None:
    message = error_of("openai/gpt-5", {"MINI_API": "openai-responses", "OPENAI_API_KEY": SECRET}, tmp_path)
    assert (
        message == 'MINI_API="openai-responses" is not valid: use anthropic-messages or openai-completions.'
    )


def test_a_bad_mini_auth_lists_the_two_kinds(tmp_path: Path) -> None:
    message = error_of("openai/gpt-5", {"MINI_AUTH": "oauth", "OPENAI_API_KEY": SECRET}, tmp_path)
    assert message == 'MINI_AUTH="oauth" is not valid: use api-key or bearer.'


def test_an_unknown_provider_without_base_url_is_explained(tmp_path: Path) -> None:
    message = error_of("acme/rocket-1", {"MINI_API_KEY": SECRET}, tmp_path)
    assert 'Unknown provider "acme" in model "acme/rocket-1"' in message
    assert "Known providers: anthropic, deepseek, zai, bigmodel," in message
    assert "set MINI_BASE_URL and MINI_API" in message
    assert str(tmp_path / "models.json") in message


def test_an_unknown_provider_with_base_url_but_no_api_asks_for_mini_api(tmp_path: Path) -> None:
    env = {"MINI_BASE_URL": "http://127.0.0.1:9000/v1", "MINI_API_KEY": SECRET}
    message = error_of("acme/rocket-1", env, tmp_path)
    assert message == (
        'Provider "acme" has no ready template, so MINI_API must say which protocol MINI_BASE_URL speaks: '
        "set MINI_API to anthropic-messages or openai-completions."
    )


def test_an_unknown_provider_is_assembled_from_the_environment(tmp_path: Path) -> None:
    env = {
        "MINI_BASE_URL": "http://127.0.0.1:9000/v1",
        "MINI_API": "anthropic-messages",
        "MINI_API_KEY": SECRET,
    }
    model = resolve("acme/rocket-1:max", env, tmp_path)
    assert (model.ref, model.api, model.base_url, model.auth, model.api_key) == (
        "acme/rocket-1",
        "anthropic-messages",
        "http://127.0.0.1:9000",
        "api-key",
        SECRET,
    )
    assert (model.context_window, model.max_tokens) == (128_000, 32_000)


def test_an_unknown_provider_needs_mini_api_key(tmp_path: Path) -> None:
    env = {"MINI_BASE_URL": "http://127.0.0.1:9000/v1", "MINI_API": "openai-completions"}
    message = error_of("acme/rocket-1", env, tmp_path)
    assert message == "No API key for acme/rocket-1: MINI_API_KEY is not set. Set it to your API key."


def test_mini_provider_applies_to_a_name_without_prefix(tmp_path: Path) -> None:
    env = {"MINI_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": SECRET}
    model, thinking = resolve_model("claude-sonnet-5:high", env, tmp_path)
    assert (model.ref, thinking) == ("anthropic/claude-sonnet-5", "high")


def test_a_name_without_prefix_and_a_base_url_uses_the_custom_provider(tmp_path: Path) -> None:
    env = {
        "MINI_BASE_URL": "http://127.0.0.1:9000/v1",
        "MINI_API": "openai-completions",
        "MINI_API_KEY": SECRET,
    }
    model = resolve("qwen3:8b", env, tmp_path)
    assert (model.provider, model.id, model.base_url) == ("custom", "qwen3:8b", "http://127.0.0.1:9000/v1")


def test_a_name_without_prefix_and_nothing_else_is_an_error(tmp_path: Path) -> None:
    message = error_of("claude-sonnet-5", {"ANTHROPIC_API_KEY": SECRET}, tmp_path)
    assert 'The model name "claude-sonnet-5" has no provider' in message


def test_an_empty_name_is_an_error(tmp_path: Path) -> None:
    assert "The model name is empty" in error_of("  ", {"DEEPSEEK_API_KEY": SECRET}, tmp_path)


def test_a_missing_key_names_the_variables_and_never_a_value(tmp_path: Path) -> None:
    env = {"OPENAI_API_KEY": SECRET, "DEEPSEEK_API_KEY": SECRET + "-2", "MINI_API_KEY": ""}
    message = error_of("anthropic/claude-sonnet-5", env, tmp_path)
    assert message == (
        "No API key for anthropic/claude-sonnet-5: none of MINI_API_KEY, ANTHROPIC_API_KEY is set. "
        "Set one of them to your API key."
    )
    assert SECRET not in message


def test_the_key_never_shows_in_the_model_repr(tmp_path: Path) -> None:
    model = resolve("openai/gpt-5", {"OPENAI_API_KEY": SECRET}, tmp_path)
    assert SECRET not in repr(model)
    assert SECRET not in str(model)


EMPTY_IS_UNSET = [
    ({"MODEL": "", "DEEPSEEK_API_KEY": SECRET}, "deepseek/deepseek-v4-flash", "https://api.deepseek.com/v1"),
    (
        {"MODEL": "   ", "DEEPSEEK_API_KEY": SECRET},
        "deepseek/deepseek-v4-flash",
        "https://api.deepseek.com/v1",
    ),
    (
        {"MINI_BASE_URL": "", "DEEPSEEK_API_KEY": SECRET},
        "deepseek/deepseek-v4-flash",
        "https://api.deepseek.com/v1",
    ),
    ({"MINI_API": "", "MINI_AUTH": "", "DEEPSEEK_API_KEY": SECRET}, "deepseek/deepseek-v4-flash", None),
    ({"MINI_API_KEY": "", "DEEPSEEK_API_KEY": SECRET}, "deepseek/deepseek-v4-flash", None),
    ({"MINI_PROVIDER": "", "DEEPSEEK_API_KEY": SECRET}, "deepseek/deepseek-v4-flash", None),
]


@pytest.mark.parametrize(("env", "ref", "base_url"), EMPTY_IS_UNSET)
def test_empty_variables_count_as_unset(
    env: dict[str, str], ref: str, base_url: str | None, tmp_path: Path
) -> None:
    model = resolve(None, env, tmp_path)
    assert (model.ref, model.api, model.auth, model.api_key) == (ref, "openai-completions", "bearer", SECRET)
    if base_url:
        assert model.base_url == base_url


def test_an_empty_mini_provider_does_not_prefix_a_bare_name(tmp_path: Path) -> None:
    message = error_of("gpt-5", {"MINI_PROVIDER": "", "OPENAI_API_KEY": SECRET}, tmp_path)
    assert 'The model name "gpt-5" has no provider' in message


def test_an_empty_template_key_counts_as_missing(tmp_path: Path) -> None:
    message = error_of("openai/gpt-5", {"OPENAI_API_KEY": " "}, tmp_path)
    assert "none of MINI_API_KEY, OPENAI_API_KEY is set" in message


def test_agent_dir_comes_from_mini_agent_dir(tmp_path: Path) -> None:
    assert agent_dir_from_env({"MINI_AGENT_DIR": str(tmp_path)}) == tmp_path


def test_agent_dir_expands_the_home_folder() -> None:
    assert agent_dir_from_env({"MINI_AGENT_DIR": "~/elsewhere"}) == Path.home() / "elsewhere"


@pytest.mark.parametrize("env", [{}, {"MINI_AGENT_DIR": ""}])
def test_agent_dir_defaults_to_dot_mini(env: dict[str, str]) -> None:
    assert agent_dir_from_env(env) == Path.home() / ".mini"


@pytest.mark.parametrize(
    "name", ["anthropic/claude-sonnet-5:ultra", "openai/gpt-5:none", "deepseek/deepseek-v4-flash:on"]
)
def test_a_tag_on_a_known_model_that_is_not_a_level_is_an_error(tmp_path: Path, name: str) -> None:
    message = error_of(name, {"MINI_API_KEY": SECRET}, tmp_path)
    assert "which is not a thinking level" in message
    assert "off, minimal, low, medium, high, xhigh, max" in message
    assert f'"{name.rpartition(":")[0]}:high"' in message


def test_a_tag_is_part_of_the_id_where_the_provider_may_have_such_a_model(tmp_path: Path) -> None:
    env = {"MINI_API_KEY": SECRET}
    assert resolve("openrouter/openai/gpt-5:free", env, tmp_path).id == "openai/gpt-5:free"
    (tmp_path / "models.json").write_text(
        '{"providers": {"ollama": {"baseUrl": "http://127.0.0.1:11434/v1", "api": "openai-completions",'
        ' "models": [{"id": "qwen3"}, {"id": "qwen3:8b"}]}}}'
    )
    assert resolve("ollama/qwen3:8b", env, tmp_path).id == "qwen3:8b"
    assert "which is not a thinking level" in error_of("ollama/qwen3:turbo", env, tmp_path)
