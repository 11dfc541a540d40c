"""models.json in Pi's format: priority over templates, value forms, headers, and broken-file messages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from miniroom.llm.model import Model
from miniroom.llm.models_json import load_models_json, strip_json_comments
from miniroom.llm.registry import ModelConfigError, resolve_model

SECRET = "sk-very-secret-value-42"


def write_models(agent_dir: Path, data: Any) -> Path:
    path = agent_dir / "models.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return path


def provider_file(agent_dir: Path, provider: str, **entry: Any) -> Path:
    return write_models(agent_dir, {"providers": {provider: entry}})


def resolve(name: str, env: dict[str, str], agent_dir: Path) -> Model:
    model, _ = resolve_model(name, env, agent_dir)
    return model


def error_of(name: str, env: dict[str, str], agent_dir: Path) -> str:
    with pytest.raises(ModelConfigError) as caught:
        resolve_model(name, env, agent_dir)
    return str(caught.value)


OLLAMA = {
    "baseUrl": "http://127.0.0.1:11434/v1",
    "api": "openai-completions",
    "apiKey": "ollama",
    "models": [{"id": "qwen3:8b"}, {"id": "llama3.1:8b", "name": "Llama", "input": ["text", "image"]}],
}


def test_a_custom_provider_gets_pi_defaults(tmp_path: Path) -> None:
    provider_file(tmp_path, "ollama", **OLLAMA)
    model, thinking = resolve_model("ollama/qwen3:8b:high", {}, tmp_path)
    assert thinking == "high"
    assert (model.ref, model.name, model.api, model.base_url, model.auth, model.api_key) == (
        "ollama/qwen3:8b",
        "qwen3:8b",
        "openai-completions",
        "http://127.0.0.1:11434/v1",
        "bearer",
        "ollama",
    )
    assert (model.reasoning, model.accepts_images, model.context_window, model.max_tokens) == (
        False,
        False,
        128_000,
        32_000,
    )


def test_a_full_model_definition_is_used(tmp_path: Path) -> None:
    model_entry = {
        "id": "big",
        "name": "Big Model",
        "reasoning": True,
        "input": ["text", "image"],
        "contextWindow": 262_144,
        "maxTokens": 65_536,
        "cost": {"input": 0.6, "output": 3, "cacheRead": 0.1, "cacheWrite": 0.2},
    }
    provider_file(
        tmp_path,
        "myllm",
        baseUrl="https://llm.example.com/v1",
        api="openai-completions",
        apiKey=SECRET,
        models=[model_entry],
    )
    model = resolve("myllm/big", {}, tmp_path)
    assert (model.name, model.reasoning, model.accepts_images, model.context_window, model.max_tokens) == (
        "Big Model",
        True,
        True,
        262_144,
        65_536,
    )
    assert (model.cost.input, model.cost.output, model.cost.cache_read, model.cost.cache_write) == (
        0.6,
        3.0,
        0.1,
        0.2,
    )


def test_an_unlisted_model_of_a_models_json_provider_gets_the_defaults(tmp_path: Path) -> None:
    provider_file(tmp_path, "ollama", **OLLAMA)
    model = resolve("ollama/mistral:7b", {}, tmp_path)
    assert (model.id, model.base_url, model.context_window, model.reasoning) == (
        "mistral:7b",
        "http://127.0.0.1:11434/v1",
        128_000,
        True,
    )


def test_models_json_overrides_a_template_base_url(tmp_path: Path) -> None:
    provider_file(tmp_path, "deepseek", baseUrl="https://proxy.example.com/deepseek/v1")
    model = resolve("deepseek/deepseek-v4-flash", {"DEEPSEEK_API_KEY": SECRET}, tmp_path)
    assert (model.base_url, model.api, model.api_key, model.context_window) == (
        "https://proxy.example.com/deepseek/v1",
        "openai-completions",
        SECRET,
        1_048_576,
    )


def test_models_json_wins_over_the_environment(tmp_path: Path) -> None:
    provider_file(tmp_path, "anthropic", baseUrl="https://file.example.com", apiKey="sk-from-file")
    env = {"MINI_BASE_URL": "https://env.example.com", "MINI_API_KEY": "sk-from-env"}
    model = resolve("anthropic/claude-sonnet-5", env, tmp_path)
    assert (model.base_url, model.api_key) == ("https://file.example.com", "sk-from-file")


def test_a_models_json_definition_replaces_the_template_model(tmp_path: Path) -> None:
    provider_file(tmp_path, "anthropic", models=[{"id": "claude-sonnet-5", "contextWindow": 200_000}])
    model = resolve("anthropic/claude-sonnet-5", {"ANTHROPIC_API_KEY": SECRET}, tmp_path)
    assert (model.context_window, model.max_tokens, model.cost.input, model.base_url, model.api) == (
        200_000,
        32_000,
        0.0,
        "https://api.anthropic.com",
        "anthropic-messages",
    )


def test_model_overrides_change_only_the_given_fields(tmp_path: Path) -> None:
    override = {"maxTokens": 1_000, "cost": {"input": 2}, "headers": {"X-Route": "bedrock"}}
    provider_file(tmp_path, "anthropic", modelOverrides={"claude-sonnet-5": override})
    model = resolve("anthropic/claude-sonnet-5", {"ANTHROPIC_API_KEY": SECRET}, tmp_path)
    assert (model.max_tokens, model.context_window, model.name) == (1_000, 1_000_000, "Claude Sonnet 5")
    assert (model.cost.input, model.cost.output, model.cost.cache_read) == (2.0, 15.0, 0.3)
    assert model.headers == (("X-Route", "bedrock"),)


def test_the_model_level_api_and_base_url_win(tmp_path: Path) -> None:
    entry = {"id": "claude-x", "api": "anthropic-messages", "baseUrl": "https://gw.example.com/anthropic/v1"}
    provider_file(
        tmp_path,
        "gw",
        baseUrl="https://gw.example.com/v1",
        api="openai-completions",
        apiKey=SECRET,
        models=[entry],
    )
    model = resolve("gw/claude-x", {}, tmp_path)
    assert (model.api, model.base_url, model.auth) == (
        "anthropic-messages",
        "https://gw.example.com/anthropic",
        "api-key",
    )


def test_auth_header_means_bearer(tmp_path: Path) -> None:
    provider_file(
        tmp_path,
        "proxy",
        baseUrl="https://proxy.example.com/v1/",
        api="anthropic-messages",
        apiKey=SECRET,
        authHeader=True,
    )
    model = resolve("proxy/claude-sonnet-5", {}, tmp_path)
    assert (model.auth, model.base_url) == ("bearer", "https://proxy.example.com")


@pytest.mark.parametrize("form", ["MY_LLM_KEY", "$MY_LLM_KEY", "${MY_LLM_KEY}"])
def test_api_key_names_an_environment_variable(form: str, tmp_path: Path) -> None:
    provider_file(tmp_path, "ollama", **{**OLLAMA, "apiKey": form})
    assert resolve("ollama/qwen3:8b", {"MY_LLM_KEY": SECRET}, tmp_path).api_key == SECRET


@pytest.mark.parametrize("form", ["MY_LLM_KEY", "$MY_LLM_KEY", "${MY_LLM_KEY}"])
def test_an_api_key_variable_that_is_not_set_is_named(form: str, tmp_path: Path) -> None:
    path = provider_file(tmp_path, "ollama", **{**OLLAMA, "apiKey": form})
    message = error_of("ollama/qwen3:8b", {"MY_LLM_KEY": "", "OTHER_KEY": SECRET}, tmp_path)
    assert message == (
        f"No API key for ollama/qwen3:8b: none of MY_LLM_KEY (named by apiKey in {path}), MINI_API_KEY "
        "is set. Set one of them to your API key."
    )
    assert SECRET not in message


def test_an_unset_api_key_variable_falls_back_to_mini_api_key(tmp_path: Path) -> None:
    provider_file(tmp_path, "ollama", **{**OLLAMA, "apiKey": "$MY_LLM_KEY"})
    assert resolve("ollama/qwen3:8b", {"MINI_API_KEY": SECRET}, tmp_path).api_key == SECRET


def test_a_shell_command_api_key_is_refused_without_echoing_it(tmp_path: Path) -> None:
    path = provider_file(tmp_path, "ollama", **{**OLLAMA, "apiKey": "!op read op://vault/llm"})
    message = error_of("ollama/qwen3:8b", {}, tmp_path)
    assert message.startswith(f"{path}: providers.ollama.apiKey runs a shell command")
    assert 'write "$NAME" instead' in message
    assert "op://vault" not in message


def test_headers_merge_provider_then_model(tmp_path: Path) -> None:
    entry = {"id": "m", "headers": {"x-tenant": "model-level", "X-Model": "m1"}}
    headers = {"X-Tenant": "provider-level", "X-Token": "$GW_TOKEN", "X-App": "MINIROOM_APP"}
    provider_file(
        tmp_path,
        "gw",
        baseUrl="https://gw.example.com/v1",
        api="openai-completions",
        apiKey=SECRET,
        headers=headers,
        models=[entry],
    )
    model = resolve("gw/m", {"GW_TOKEN": "token-1"}, tmp_path)
    assert model.headers == (
        ("x-tenant", "model-level"),
        ("X-Token", "token-1"),
        ("X-App", "MINIROOM_APP"),
        ("X-Model", "m1"),
    )


def test_a_header_naming_an_unset_variable_is_an_error(tmp_path: Path) -> None:
    path = provider_file(tmp_path, "ollama", **{**OLLAMA, "headers": {"X-Token": "${GW_TOKEN}"}})
    message = error_of("ollama/qwen3:8b", {}, tmp_path)
    assert message == (
        f"{path}: providers.ollama.headers.X-Token uses $GW_TOKEN, which is not set: "
        "set the variable or remove the header."
    )


def test_a_provider_without_api_is_explained(tmp_path: Path) -> None:
    path = provider_file(
        tmp_path, "myllm", baseUrl="https://llm.example.com/v1", apiKey=SECRET, models=[{"id": "m"}]
    )
    message = error_of("myllm/m", {}, tmp_path)
    assert message == (
        f'{path}: providers.myllm sets no "api": add "api": "openai-completions" (or "anthropic-messages") '
        "there, or set MINI_API."
    )


def test_a_provider_without_base_url_is_explained(tmp_path: Path) -> None:
    path = provider_file(tmp_path, "myllm", api="openai-completions", apiKey=SECRET, models=[{"id": "m"}])
    message = error_of("myllm/m", {}, tmp_path)
    assert message == f'{path}: providers.myllm sets no "baseUrl": add it there, or set MINI_BASE_URL.'


def test_a_models_json_base_url_without_scheme_names_its_place(tmp_path: Path) -> None:
    path = provider_file(tmp_path, "ollama", **{**OLLAMA, "baseUrl": "localhost:11434/v1"})
    message = error_of("ollama/qwen3:8b", {}, tmp_path)
    assert message.startswith(f"{path} is not a valid models.json")
    assert "providers.ollama.baseUrl: must start with http:// or https://" in message


def test_pi_only_options_are_accepted(tmp_path: Path) -> None:
    entry = {"id": "m", "compat": {"supportsDeveloperRole": False}, "thinkingLevelMap": {"high": "high"}}
    provider_file(
        tmp_path, "ollama", **{**OLLAMA, "compat": {"maxTokensField": "max_tokens"}, "models": [entry]}
    )
    assert resolve("ollama/m", {}, tmp_path).id == "m"


def test_comments_are_allowed_as_in_pi(tmp_path: Path) -> None:
    text = """{
      // local models
      "providers": { /* one provider */ "ollama": {
        "baseUrl": "http://127.0.0.1:11434/v1", "api": "openai-completions", "apiKey": "ollama",
        "models": [{"id": "a//b", "name": "/* not a comment */"}]
      }}
    }"""
    (tmp_path / "models.json").write_text(text, encoding="utf-8")
    model = resolve("ollama/a//b", {}, tmp_path)
    assert (model.name, model.base_url) == ("/* not a comment */", "http://127.0.0.1:11434/v1")


def test_stripping_comments_keeps_lines_and_columns() -> None:
    text = '{"a": "x\\"//y", // note\n/* two\nlines */ "b": 1}'
    stripped = strip_json_comments(text)
    assert len(stripped) == len(text)
    assert stripped.count("\n") == text.count("\n")
    assert json.loads(stripped) == {"a": 'x"//y', "b": 1}


def test_a_missing_file_is_no_file(tmp_path: Path) -> None:
    assert load_models_json(tmp_path / "models.json") is None


def broken_file_message(agent_dir: Path, text: str) -> str:
    path = agent_dir / "models.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ModelConfigError) as caught:
        load_models_json(path)
    return str(caught.value)


def test_invalid_json_gives_line_and_column(tmp_path: Path) -> None:
    message = broken_file_message(tmp_path, '{\n  "providers": {\n    "a": {"baseUrl": "x",}\n  }\n}')
    assert (
        message == f"{tmp_path / 'models.json'}:3: not valid JSON: trailing comma is not allowed (column 25)."
    )


def test_a_column_after_a_comment_is_still_right(tmp_path: Path) -> None:
    message = broken_file_message(tmp_path, '{ /* c */ "providers" {}}')
    assert message.endswith(":1: not valid JSON: unexpected character, expected ':' after key (column 23).")


BROKEN_FILES = [
    ({"providers": {"myllm": {"models": [{"id": "m", "contextWindow": 0}]}}},
     "providers.myllm.models[0].contextWindow: must be greater than 0"),
    ({"providers": {"myllm": {"models": [{"id": "m", "contextWindow": "128000"}]}}},
     "providers.myllm.models[0].contextWindow: must be a whole number"),
    ({"providers": {"myllm": {"models": [{"id": "m", "maxTokens": 1.5}]}}},
     "providers.myllm.models[0].maxTokens: must be a whole number"),
    ({"providers": {"myllm": {"models": [{"name": "m"}]}}},
     "providers.myllm.models[0].id: this key is required"),
    ({"providers": {"myllm": {"models": [{"id": ""}]}}}, "providers.myllm.models[0].id: must not be empty"),
    ({"providers": {"myllm": {"api": "openai-responses"}}},
     "providers.myllm.api: must be 'anthropic-messages' or 'openai-completions'"),
    ({"providers": {"myllm": {"models": [{"id": "m", "input": ["text", "audio"]}]}}},
     "providers.myllm.models[0].input[1]: must be 'text' or 'image'"),
    ({"providers": {"myllm": {"models": [{"id": "m", "cost": {"input": -1}}]}}},
     "providers.myllm.models[0].cost.input: must be greater than or equal to 0"),
    ({"providers": {"myllm": {"models": [{"id": "m", "reasoning": "yes"}]}}},
     "providers.myllm.models[0].reasoning: must be true or false"),
    ({"providers": {"myllm": {"models": {"id": "m"}}}}, "providers.myllm.models: must be a JSON array"),
    ({"providers": {"myllm": []}}, "providers.myllm: must be a JSON object"),
    ({"providers": {"my.llm": {"headers": {"X-A": 1}}}}, 'providers["my.llm"].headers.X-A: must be a string'),
    ({"providers": {"or": {"modelOverrides": {"anthropic/claude": {"maxTokens": 0}}}}},
     'providers.or.modelOverrides["anthropic/claude"].maxTokens: must be greater than 0'),
    ({}, "providers: this key is required"),
    ([], "(the top level): must be a JSON object"),
]  # fmt: skip


@pytest.mark.parametrize(("data", "problem"), BROKEN_FILES)
def test_broken_files_name_the_file_the_key_and_the_problem(data: Any, problem: str, tmp_path: Path) -> None:
    message = broken_file_message(tmp_path, json.dumps(data))
    assert message.startswith(f"{tmp_path / 'models.json'} is not a valid models.json (Pi's format):\n")
    assert f"  - {problem}" in message.splitlines()


def test_an_unknown_key_lists_the_allowed_keys(tmp_path: Path) -> None:
    data = {"providers": {"myllm": {"models": [{"id": "m", "contextWindows": 1}], "cost": {}}}}
    lines = broken_file_message(tmp_path, json.dumps(data)).splitlines()
    assert (
        "  - providers.myllm.cost: unknown key; the keys allowed here are: name, baseUrl, api, apiKey, "
        "authHeader, headers, compat, models, modelOverrides"
    ) in lines
    assert any(
        line.startswith("  - providers.myllm.models[0].contextWindows: unknown key;")
        and "contextWindow," in line
        and " id," in line
        for line in lines
    )


def test_errors_never_echo_values(tmp_path: Path) -> None:
    data = {
        "providers": {
            "myllm": {"apiKey": 4242424242, "baseUrl": SECRET, "models": [{"id": "m", "x": SECRET}]}
        }
    }
    message = broken_file_message(tmp_path, json.dumps(data))
    assert "providers.myllm.apiKey: must be a string" in message
    assert "4242424242" not in message
    assert SECRET not in message


def test_many_errors_are_summarised(tmp_path: Path) -> None:
    models = [{"id": "m", "contextWindow": 0} for _ in range(8)]
    message = broken_file_message(tmp_path, json.dumps({"providers": {"p": {"models": models}}}))
    assert message.count("must be greater than 0") == 5
    assert message.endswith("  … and 3 more")


def test_a_broken_file_stops_resolution_even_for_a_template(tmp_path: Path) -> None:
    (tmp_path / "models.json").write_text("{", encoding="utf-8")
    message = error_of("anthropic/claude-sonnet-5", {"ANTHROPIC_API_KEY": SECRET}, tmp_path)
    assert message.startswith(f"{tmp_path / 'models.json'}:1: not valid JSON")


def test_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    (tmp_path / "models.json").write_bytes(b'{"providers": {"\xff": {}}}')
    with pytest.raises(
        ModelConfigError, match=r"models\.json:1: is not UTF-8 text \(byte 0xff\): save it as UTF-8$"
    ):
        load_models_json(tmp_path / "models.json")


def test_a_folder_in_place_of_the_file(tmp_path: Path) -> None:
    (tmp_path / "models.json").mkdir()
    with pytest.raises(
        ModelConfigError, match=r"models\.json: is a folder: a settings file must be a regular file$"
    ):
        load_models_json(tmp_path / "models.json")
