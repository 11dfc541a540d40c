"""A layer's public face whose names load with their module at first use (PEP 562): importing the face costs
nothing, so a command imports only the modules it uses (a turn that calls no tool loads no validator)."""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path


def lazy_face(package: str, init_file: str) -> Callable[[str], object]:
    """The `__getattr__` of the face in `init_file`: each name its `if TYPE_CHECKING:` block imports is
    loaded from that module when first asked for, and kept in the package."""
    homes: dict[str, tuple[str, str]] = {}

    def attribute(name: str) -> object:
        if not homes:
            homes.update(typed_imports(Path(init_file)))
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, original = home
        value = getattr(importlib.import_module(module), original)
        setattr(sys.modules[package], name, value)
        return value

    return attribute


def typed_imports(path: Path) -> dict[str, tuple[str, str]]:
    """Name -> (module, name there) of each `from module import name [as other]` in the `if TYPE_CHECKING:`
    blocks of `path`."""
    homes: dict[str, tuple[str, str]] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.module is not None:
                    module = statement.module
                    homes.update(
                        {alias.asname or alias.name: (module, alias.name) for alias in statement.names}
                    )
    return homes
