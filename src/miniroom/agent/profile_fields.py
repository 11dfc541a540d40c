"""The pydantic model of one profile in `.miniroom/miniagent.yml` (or MINI_PROFILE_* variables): imported
only when a profile is read, so a project without one does not build it."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, field_validator, model_validator

from miniroom.agent.tool_names import tool_name_problem
from miniroom.config.problems import describe_value, invalid
from miniroom.config.settings_model import OptionalPositiveWhole, SettingsModel
from miniroom.llm import ThinkingLevel

HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")  # an HTTP token (RFC 9110)


def _check_tool_name(name: str) -> str:
    problem = tool_name_problem(name)
    if problem:
        raise invalid(problem)
    return name


def _check_header_name(name: str | None) -> str | None:
    if name is not None and not HEADER_NAME.match(name):
        raise invalid(
            "must be an HTTP header name (letters, digits and '-', no spaces), got {got}",
            got=describe_value(name),
        )
    return name


def _yaml_off(value: object) -> object:
    # YAML 1.1 reads a bare `off` as false, so `thinkingLevel: off` arrives as a boolean.
    return "off" if value is False else value


ToolName = Annotated[str, AfterValidator(_check_tool_name)]


class ProfileFields(SettingsModel):
    """One profile as written in miniagent.yml; None means "not set here"."""

    load_claude_md: bool | None = None
    load_agents_md: bool | None = None
    enabled_tools: list[ToolName] | None = None
    disabled_tools: list[ToolName] | None = None
    tool_call_timeout: OptionalPositiveWhole = None
    first_byte_timeout: OptionalPositiveWhole = None
    idle_timeout: OptionalPositiveWhole = None
    max_model_requests: OptionalPositiveWhole = None
    max_output_tokens: OptionalPositiveWhole = None
    thinking_budget: OptionalPositiveWhole = None
    thinking_level: Annotated[ThinkingLevel | None, BeforeValidator(_yaml_off)] = None
    parallel_bash_threads: OptionalPositiveWhole = None
    read_max_lines: OptionalPositiveWhole = None
    max_parallel_agents: OptionalPositiveWhole = None
    system_prompt: str | None = None
    session_header: Annotated[str | None, AfterValidator(_check_header_name)] = None
    minimal_bash_timeout: OptionalPositiveWhole = None
    answer_timeout: OptionalPositiveWhole = None
    max_answer_bytes: OptionalPositiveWhole = None
    sandbox: Annotated[Literal["off", "workspace", "read-only"] | None, BeforeValidator(_yaml_off)] = None
    sandbox_network: bool | None = None
    approval_timeout: OptionalPositiveWhole = None

    @field_validator("enabled_tools")
    @classmethod
    def _some_tools(cls, names: list[str] | None) -> list[str] | None:
        if names == []:
            raise invalid("is empty, which would leave the agent no tools at all: name the tools to allow")
        return names

    @model_validator(mode="after")
    def _one_list(self) -> ProfileFields:
        if self.enabled_tools is not None and self.disabled_tools is not None:
            raise invalid(
                "sets both enabledTools and disabledTools: keep one, the allowlist (enabledTools) "
                "or the denylist (disabledTools)"
            )
        return self
