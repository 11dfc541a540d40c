"""Writes `tools/specs.json`, the spec of every built-in tool class, which agents are sent before the class
loads: `python -m miniroom.testing.tool_specs` after changing a tool's name, description or parameters."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from dataclasses import asdict
from typing import Any

import orjson

import miniroom.tools
from miniroom.tools import SPECS_FILE, BuiltinTool

# Beside the tools package, the modules whose tool classes agents get as declared tools.
OTHER_TOOL_MODULES = ("miniroom.web.tools", "miniroom.agent.subagents.tools", "miniroom.rooms.runtime.outbox")


def _concrete(cls: type[Any]) -> list[type[Any]]:
    found = [cls] if "params_model" in vars(cls) or "name" in vars(cls) else []
    return found + [sub for child in cls.__subclasses__() for sub in _concrete(child)]


def tool_specs() -> dict[str, dict[str, Any]]:
    """Each of miniroom's tool classes' spec by `module:Class`, in a stable order."""
    for module in pkgutil.iter_modules(miniroom.tools.__path__, "miniroom.tools."):
        importlib.import_module(module.name)
    for name in OTHER_TOOL_MODULES:
        importlib.import_module(name)
    classes = [cls for cls in _concrete(BuiltinTool) if cls.__module__.startswith("miniroom.")]
    specs = {f"{cls.__module__}:{cls.__qualname__}": asdict(cls.class_spec()) for cls in classes}
    return dict(sorted(specs.items()))


def spec_file_text() -> bytes:
    return orjson.dumps(tool_specs(), option=orjson.OPT_INDENT_2) + b"\n"


def main() -> int:
    SPECS_FILE.write_bytes(spec_file_text())
    print(f"wrote {SPECS_FILE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
