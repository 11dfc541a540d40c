"""`miniroom init`: a commented config.yaml (one agent in a lobby room) and `.miniroom/` defaults, so that a
`pip install miniroom` has something to serve. An existing file is never overwritten."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from miniroom.cli.common import fail
from miniroom.config.paths import DEFAULT_CONFIG, RETRY_FILE, SETTINGS_FOLDER
from miniroom.engine import RetryPolicy
from miniroom.llm import DEFAULT_MODEL_NAME, TEMPLATES, env_value
from miniroom.web.project import DEFAULT_FETCH_YML


@dataclass(frozen=True)
class ModelChoice:
    """The model config.yaml starts with, and the variable it was chosen by (None: nothing was set)."""

    name: str
    chosen_by: str | None


def choose_model(env: Mapping[str, str]) -> ModelChoice:
    """MODEL when set, else the first model of the first provider whose key is set, else the default."""
    named = env_value(env, "MODEL")
    if named is not None:
        return ModelChoice(named, "MODEL")
    for template in TEMPLATES.values():
        if template.models and env_value(env, template.key_variable) is not None:
            return ModelChoice(f"{template.id}/{next(iter(template.models))}", template.key_variable)
    return ModelChoice(DEFAULT_MODEL_NAME, None)


def key_variable(model: str) -> str | None:
    template = TEMPLATES.get(model.partition("/")[0])
    return template.key_variable if template is not None else None


def model_note(choice: ModelChoice) -> str:
    """The comment above `models:` saying where the model came from and what it needs."""
    if choice.chosen_by == "MODEL":
        return "# The model is the one MODEL named when this file was written."
    if choice.chosen_by is not None:
        return f"# The model was picked because {choice.chosen_by} was set when this file was written."
    key = key_variable(choice.name) or "its provider's key"
    return (
        "# No provider key was set when this file was written, so this is miniroom's default model: set\n"
        f"# {key} before `miniroom serve`, or put another model here (e.g. anthropic/claude-sonnet-5\n"
        "# with ANTHROPIC_API_KEY, openai/gpt-5 with OPENAI_API_KEY)."
    )


def config_text(choice: ModelChoice) -> str:
    return f"""\
# The agents `miniroom serve` runs and the rooms they answer in (README: "Agents in rooms").
# `miniroom config check` validates this file; the web chat's settings edit it too.

{model_note(choice)}
models:
  default:
    model: {choice.name}   # provider/model[:thinking]; thinking: off, minimal, low, medium, high, ...

agents:
  assistant:
    display_name: Assistant
    role: A general helper for the team     # the router reads roles to pick one agent
    instructions:
      - Answer clearly and briefly; ask a question when a request is ambiguous.
    model: default                          # an alias under models:
    rooms: [lobby]                          # the rooms it joins and answers in
    thread_mode: thread                     # thread: each message starts a thread; room: one conversation

rooms:
  lobby:
    display_name: Lobby

# Embedded rooms with the web chat at http://127.0.0.1:8765; to live on a Matrix homeserver instead, add:
# matrix:
#   homeserver: https://matrix.example.org
#   server_name: example.org
"""


def retry_text() -> str:
    policy = RetryPolicy()
    return f"""\
# A failed model request (rate limit, overload, dropped connection) is tried again: the pause between
# attempts in seconds, and the attempts in all, the first included. These are the defaults.
retryIntervalSeconds: {int(policy.interval_seconds)}
maxAttempts: {policy.max_attempts}
"""


def project_files(choice: ModelChoice) -> dict[str, str]:
    """What `init` writes, by path relative to the project folder."""
    settings = SETTINGS_FOLDER
    return {
        DEFAULT_CONFIG: config_text(choice),
        (settings / "fetch.yml").as_posix(): DEFAULT_FETCH_YML,
        RETRY_FILE.as_posix(): retry_text(),
    }


def write_new(path: Path, text: str) -> bool:
    """Write `text` to `path` unless something is there already (not even a link is followed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(text)
    return True


def missing_config(path: Path) -> str:
    """What `serve` says when config.yaml is missing: how to write one, or where to point instead."""
    folder = path.parent
    command = "miniroom init" if folder.resolve() == Path.cwd().resolve() else f"miniroom init {folder}"
    made = folder / DEFAULT_CONFIG
    then = "" if path.name == DEFAULT_CONFIG else f", then pass --config {made}"
    return (
        f"{path}: no such file. Run `{command}` to write {made} with one agent in a lobby room{then}; "
        "or pass --config FILE, or set MINIROOM_CONFIG, to serve a config.yaml you have."
    )


def init_command(args: argparse.Namespace) -> int:
    folder = Path(args.dir).expanduser() if args.dir else Path.cwd()
    if folder.exists() and not folder.is_dir():
        return fail(f"{args.dir}: not a folder; name the folder to write config.yaml in")
    choice = choose_model(os.environ)
    try:
        written = {name: write_new(folder / name, text) for name, text in project_files(choice).items()}
    except OSError as error:
        return fail(f"{error.filename}: {error.strerror}; pick a folder you can write to", code=1)
    print(f"miniroom init: {folder.resolve()}")
    for name, created in written.items():
        print(f"  {'created' if created else 'kept'} {name}{'' if created else ' (it exists; not changed)'}")
    if written[DEFAULT_CONFIG]:
        by = f" (because {choice.chosen_by} is set)" if choice.chosen_by else ""
        print(f"The agent `assistant` answers in the room `lobby` with {choice.name}{by}.")
        if choice.chosen_by is None:
            print(f"No provider key is set: set {key_variable(choice.name)} (see the note in config.yaml).")
    where = "" if folder.resolve() == Path.cwd().resolve() else f"cd {args.dir} && "
    print(f"Next: {where}miniroom serve   (then open http://127.0.0.1:8765/)")
    return 0
