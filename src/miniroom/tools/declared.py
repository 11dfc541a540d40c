"""Tools known by their spec until first used: the spec comes from `specs.json`, the tool's code and its
pydantic validator load at its first call, so a turn that calls no tool never imports them.

`specs.json` is generated from the tool classes (`python -m miniroom.testing.tool_specs`); a test fails when a
class and the file disagree.
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path
from typing import Any, Literal

import orjson

from miniroom.engine import ClosableTool, Tool, ToolContext, ToolResult
from miniroom.llm import ToolSpec

SPECS_FILE = Path(__file__).with_name("specs.json")
REGENERATE = "run `python -m miniroom.testing.tool_specs` to write it again"


@cache
def declared_specs() -> dict[str, dict[str, Any]]:
    """Each tool class's spec by its `module:Class` path."""
    specs: dict[str, dict[str, Any]] = orjson.loads(SPECS_FILE.read_bytes())
    return specs


def declared_spec(target: str) -> ToolSpec:
    entry = declared_specs().get(target)
    if entry is None:
        raise LookupError(f"{SPECS_FILE} has no spec of {target}: {REGENERATE}.")
    return ToolSpec(entry["name"], entry["description"], entry["parameters"])


def load_class(target: str) -> type[Any]:
    """The class a `module:Class` path names."""
    module, _, name = target.partition(":")
    cls: type[Any] = getattr(importlib.import_module(module), name)
    return cls


class DeclaredTool:
    """The tool of class `target`, made with `arguments` at its first validation, summary or call."""

    def __init__(self, target: str, *arguments: Any) -> None:
        self.target, self._arguments = target, arguments
        self.spec = declared_spec(target)
        self._tool: Tool | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def built(self) -> Tool:
        if self._tool is None:
            self._tool = load_class(self.target)(*self._arguments)
        return self._tool

    def validate(self, arguments: dict[str, Any]) -> Any:
        return self.built.validate(arguments)

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        return await self.built.execute(params, ctx)

    def summary(self, arguments: dict[str, Any]) -> str:
        return self.built.summary(arguments)

    def close(self) -> None:
        if isinstance(self._tool, ClosableTool):
            self._tool.close()


class UntimedDeclaredTool(DeclaredTool):
    """A declared tool whose calls bound themselves (see `UntimedTool`)."""

    untimed: Literal[True] = True
