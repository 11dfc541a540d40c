"""miniroom's import graph, read from the source with `ast`: what each module imports, and cycles in it."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable, Mapping
from pathlib import Path

import miniroom

SOURCE = Path(miniroom.__file__).parent


def module_name(path: Path) -> str:
    """`.../miniroom/rooms/runtime/ledger.py` -> `miniroom.rooms.runtime.ledger` (a package: its folder)."""
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """Every module `path` imports, by absolute name, wherever the import stands (in a function too).

    `from package import name` counts as an import of `package.name` when that is a module of miniroom, else
    as one of `package`.
    """
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            modules = {f"{node.module}.{alias.name}" for alias in node.names}
            modules = {name for name in modules if _is_module(name)}
            names.update(modules)
            if len(modules) < len(node.names):
                names.add(node.module)
    return names


def _is_module(name: str) -> bool:
    if not name.startswith("miniroom."):
        return False
    path = SOURCE.parent.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def source_graph(folder: Path = SOURCE) -> dict[str, set[str]]:
    """Each module below `folder` -> the modules of miniroom it imports (a copy the caller may change)."""
    return {module: set(names) for module, names in _read_graph(folder).items()}


@functools.cache
def _read_graph(folder: Path) -> dict[str, frozenset[str]]:
    """The graph read once a run: the source does not change while the tests run."""
    return {
        module_name(path): frozenset(name for name in imports(path) if name.split(".")[0] == "miniroom")
        for path in sorted(folder.rglob("*.py"))
    }


def find_cycle(graph: Mapping[str, Iterable[str]]) -> list[str] | None:
    """One import cycle in `graph` (`a -> b -> a` as `[a, b, a]`), or None."""
    done: set[str] = set()
    for start in graph:
        if start in done:
            continue
        path, on_path = [start], {start}
        stack = [(start, iter(graph[start]))]
        while stack:
            module, pending = stack[-1]
            following = next(pending, None)
            if following is None:
                stack.pop()
                path.pop()
                on_path.discard(module)
                done.add(module)
            elif following in on_path:
                return [*path[path.index(following) :], following]
            elif following not in done and following in graph:
                stack.append((following, iter(graph[following])))
                path.append(following)
                on_path.add(following)
    return None
