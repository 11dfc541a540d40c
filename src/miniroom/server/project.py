"""The project `miniroom serve` serves, as the web pages see it: its settings files, where its agents'
sessions are, and the runtime to tell when config.yaml changes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping
from pathlib import Path

from miniroom.config.config_yaml import RoomsConfig
from miniroom.engine import directory_for_cwd
from miniroom.llm import agent_dir_from_env
from miniroom.rooms.conversation import Conversation
from miniroom.rooms.runtime.agents import AgentFactory, safe_name
from miniroom.rooms.runtime.live_config import LiveConfig, ReadsLiveConfig
from miniroom.server.settings_files import ProjectFiles
from miniroom.transports.embedded import ids

# Told of a saved, valid config.yaml; returns what it did, for the page to show.
ConfigListener = Callable[[RoomsConfig], Awaitable[str]]
RESTART_TO_APPLY = "saved; restart `miniroom serve` to apply the agent and room changes"


class Project(ReadsLiveConfig):
    """`config` is the configuration served now, read from the runtime's holder when `config` is one;
    `on_config` (the room runtime) takes a new one and replaces what that holder holds."""

    def __init__(
        self,
        files: ProjectFiles,
        data_dir: Path,
        env: Mapping[str, str],
        config: RoomsConfig | LiveConfig | None = None,
        on_config: ConfigListener | None = None,
    ) -> None:
        self.files, self.data_dir, self.env = files, data_dir, env
        self.read_config(RoomsConfig() if config is None else config)
        self.on_config = on_config

    async def apply(self, config: RoomsConfig) -> str:
        """Hand a saved config.yaml to the runtime; what happened, in words."""
        if self.on_config is None:
            return RESTART_TO_APPLY
        return await self.on_config(config)

    def agent_of(self, user_id: str) -> str | None:
        """The agent posting as `user_id`: a configured one, or one that worked here before."""
        names = [*self.config.agents, *self.config.teams, *(folder.name for folder in self._workspaces())]
        return next((name for name in names if _user_id(name) == user_id), None)

    def session_path(self, agent: str, conversation: Conversation) -> Path:
        """The session file of `agent` in `conversation`, as the runtime names it."""
        return self._factory().session_path(agent, conversation)

    def reply_sessions(self, agent: str, conversation: Conversation) -> list[Path]:
        """The sessions that hold the calls of `agent`'s replies in `conversation`: a team's are its
        members' sessions for that team, an agent's its own."""
        team = self.config.teams.get(agent)
        if team is None:
            return [self.session_path(agent, conversation)]
        factory = self._factory()
        return [factory.session_path(member, conversation, agent) for member in team.agents]

    def session_folders(self) -> Iterator[tuple[str, Path]]:
        """(agent, the folder of its sessions) for every agent that has a workspace here."""
        factory = self._factory()
        for workspace in self._workspaces():
            agent = workspace.name
            env = factory.model_choice(agent).env if agent in self.config.agents else self.env
            yield agent, directory_for_cwd(agent_dir_from_env(env), workspace)

    def _factory(self) -> AgentFactory:
        return AgentFactory(self.live, self.data_dir, self.env, self.files.project_dir)

    def _workspaces(self) -> list[Path]:
        folder = self.data_dir / "workspaces"
        return sorted(path for path in folder.iterdir() if path.is_dir()) if folder.is_dir() else []


def _user_id(agent: str) -> str | None:
    try:
        return ids.user_id(safe_name(agent))
    except ValueError:
        return None
