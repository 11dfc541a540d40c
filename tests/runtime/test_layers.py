"""The layers of `rooms/`: policy imports no runtime and no I/O; the runtime reaches rooms only through
`RoomTransport`; the runtime's modules import one another without a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import miniroom.rooms

ROOMS = Path(miniroom.rooms.__file__).parent
RUNTIME = ROOMS / "runtime"
RUNTIME_PACKAGE = "miniroom.rooms.runtime"
ADAPTERS = ("miniroom.transports", "miniroom.server", "miniroom.cli", "mautrix", "sqlite3", "socket")
POLICY_FORBIDDEN = (RUNTIME_PACKAGE, "httpx", "asyncio", *ADAPTERS)


def imports(path: Path) -> set[str]:
    """Every module `path` imports, by absolute name."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            names.add(node.module)
    return names


def forbidden_imports(folder: Path, packages: tuple[str, ...]) -> set[str]:
    """`module: import` for each import, by a module of `folder`, of one of `packages` or their modules."""
    return {
        f"{path.name}: {name}"
        for path in folder.glob("*.py")
        for name in imports(path)
        if any(name == package or name.startswith(f"{package}.") for package in packages)
    }


def test_the_policy_imports_neither_the_runtime_nor_any_io() -> None:
    assert forbidden_imports(ROOMS, POLICY_FORBIDDEN) == set()


def test_the_runtime_reaches_rooms_only_through_the_transport_protocol() -> None:
    assert forbidden_imports(RUNTIME, ADAPTERS) == set()


def test_the_runtime_modules_import_one_another_without_a_cycle() -> None:
    graph = {
        path.stem: {
            name.removeprefix(f"{RUNTIME_PACKAGE}.")
            for name in imports(path)
            if name.startswith(f"{RUNTIME_PACKAGE}.")
        }
        for path in RUNTIME.glob("*.py")
        if path.stem != "__init__"
    }
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, f"import cycle: {' -> '.join((*path, module))}"
        if module in done:
            return
        for imported in graph.get(module, ()):
            visit(imported, (*path, module))
        done.add(module)

    for module in graph:
        visit(module, ())
