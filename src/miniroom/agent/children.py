"""Building a root agent's subagents: its model, folder, settings and fetch and search lists, without skills,
MCP servers or hook commands, each on a new session that names its parent; a minimal one gets the short
prompt and one Bash. A continued subagent goes on in its own session, with the settings and mode it froze."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from miniroom.agent.assembly import (
    agent_config,
    record_model,
    shell_sandbox,
    standard_tools,
    tool_filter,
)
from miniroom.agent.external import ExternalSettings, ask_rules, turn_hooks
from miniroom.agent.minimal import (
    DEFAULT_IDENTITY,
    CliMode,
    approval_problems,
    require_shell,
    shell_problems,
)
from miniroom.agent.modes import PromptFacts, prompt_and_tools
from miniroom.agent.options import AgentOptions
from miniroom.agent.profile import (
    ProfileError,
    ProfileSettings,
    ResolvedProfile,
    profile_names,
    resolve_profile,
)
from miniroom.agent.prompt import SUBAGENT_PROMPT
from miniroom.agent.session_settings import (
    SETTINGS_ENTRY,
    frozen_settings,
    retry_from_entry,
    session_settings,
    session_web,
)
from miniroom.agent.subagents.child import ChildSpec
from miniroom.agent.subagents.resume import MINIMAL_KEY
from miniroom.config.paths import PROFILE_FILE
from miniroom.engine import (
    PARENT_CALL_KEY,
    Agent,
    NoOne,
    RetryPolicy,
    Session,
    directory_for_cwd,
)
from miniroom.hooks.payloads import SessionFacts
from miniroom.llm import (
    Model,
    ThinkingLevel,
    agent_dir_from_env,
)
from miniroom.web import WebCatalogues

SUBAGENT_PERSON = NoOne("a subagent makes (it has no one to ask)")
log = logging.getLogger(__name__)
MINIMAL_IDENTITY = f"{DEFAULT_IDENTITY} {SUBAGENT_PROMPT}"


def minimal_identity(settings: ProfileSettings) -> str:
    """A minimal subagent's first line: its profile's own prompt, where it has one, in place of mini's."""
    authored = (settings.system_prompt or "").strip()
    return f"{authored} {SUBAGENT_PROMPT}" if authored else MINIMAL_IDENTITY


@dataclass(frozen=True)
class Inherited:
    """What a root agent's subagents take from its session: its settings, as the session froze them."""

    profile: ResolvedProfile
    retry: RetryPolicy
    external: ExternalSettings
    web: WebCatalogues  # the root's fetch and search lists, as its session keeps them


@dataclass(frozen=True)
class ChildBuilder:
    """Builds a root agent's subagents: its model, folder and settings (or another profile of its project),
    without skills and without the subagent tools, each on a new session that names its parent."""

    model: Model
    thinking: ThinkingLevel
    cwd: Path
    env: Mapping[str, str]
    options: AgentOptions  # the root's: its project, model variables and tool list
    root: Inherited

    @property
    def settings_dir(self) -> Path:
        return self.options.settings_dir(self.cwd)

    def check(self, profile: str | None, *, minimal: bool = False) -> None:
        if profile is not None:
            self._check_name(profile)
        if minimal:
            settings = self._resolved(profile).settings
            problems = shell_problems(settings, self.options.tool_allowlist, "the tool list")
            require_shell(problems + approval_problems(ask_rules(self.root.external)))

    def _check_name(self, profile: str) -> None:
        names = profile_names(self.settings_dir)
        if profile.strip().lower() not in names:
            known = ", ".join(names) or "none"
            raise ProfileError(
                f"There is no profile '{profile}' in {PROFILE_FILE} (profiles there: {known}); "
                "leave profile out to give the subagent this chat's settings."
            )

    def _resolved(self, profile: str | None) -> ResolvedProfile:
        if profile is None:
            return self.root.profile
        variables = {**self.options.model_variables, "AGENT_BACKEND": f"mini:{profile.strip().lower()}"}
        return resolve_profile(self.settings_dir, self.env, variables)

    def build(self, spec: ChildSpec) -> Agent:
        if spec.resume is None:
            self.check(spec.profile, minimal=spec.minimal)
            session, settings, retry = self._new_session(spec)
        else:
            session, settings, retry = self._earlier_session(spec.resume)
            if spec.minimal:
                try:
                    problems = shell_problems(settings, self.options.tool_allowlist, "the tool list")
                    require_shell(problems + approval_problems(ask_rules(self.root.external)))
                except ValueError as error:
                    session.close()
                    raise ValueError(f"{error}\nStart a new subagent without minimal instead.") from None
        agent_dir = agent_dir_from_env(self.env)
        thinking = settings.thinking_level or self.thinking
        record_model(session, self.model, thinking)
        enabled = tool_filter(settings, self.options.tool_allowlist)
        without_skills = lambda name: enabled(name) and name != "load_skill"  # noqa: E731
        web = session_web(session, self.root.web)
        sandbox = shell_sandbox(settings, self.cwd, self.settings_dir, self.env)
        tools = standard_tools(
            [], without_skills, self.settings_dir, self.options.model_variables, self.env, web, sandbox
        )
        parts = PromptFacts(
            self.cwd,
            agent_dir,
            settings,
            [],
            without_skills,
            SUBAGENT_PROMPT,
            self.options.tool_allowlist,
            sandbox,
            ask_rules(self.root.external),
        )
        command_line = (
            CliMode(minimal=True, identity=minimal_identity(settings), can_ask=False)
            if spec.minimal
            else None
        )
        prompt, sent, offer = prompt_and_tools(parts, tools, command_line)
        config = agent_config(self.model, prompt, sent, self.cwd, settings, thinking, session, retry)
        config.command_line = offer
        # a subagent runs no hook commands and has no MCP servers; the deny and ask rules still hold for it,
        # and as no one answers it, a call that asks is refused
        facts = SessionFacts(session.id, session.path, self.cwd, self.model.ref)
        hooks = turn_hooks(self.root.external, facts, self.settings_dir, commands=False)
        return Agent(dataclasses.replace(config, hooks=hooks, person=SUBAGENT_PERSON), session)

    def _new_session(self, spec: ChildSpec) -> tuple[Session, ProfileSettings, RetryPolicy]:
        link = {"parentSession": spec.parent_session, PARENT_CALL_KEY: spec.parent_call}
        mode = {MINIMAL_KEY: True} if spec.minimal else {}
        session = Session.create(
            directory_for_cwd(agent_dir_from_env(self.env), self.cwd),
            self.cwd,
            header={**link, "description": spec.description, **mode},
        )
        return frozen_settings(session, self._resolved(spec.profile), self.root.retry, web=self.root.web)

    def _earlier_session(self, path: Path) -> tuple[Session, ProfileSettings, RetryPolicy]:
        """An earlier subagent's session, with the settings it froze (whatever the files say now)."""
        session = Session.load(path)
        session.repair_interrupted_tool_calls()
        entry = session.latest(SETTINGS_ENTRY)
        name = entry.get("profile") if entry else None
        resolved = ResolvedProfile(name if isinstance(name, str) else None, session_settings(session), {})
        retry = retry_from_entry(entry) or self.root.retry
        return frozen_settings(session, resolved, retry, web=session_web(session, self.root.web))
