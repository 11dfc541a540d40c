"""The layers of `rooms/`: policy imports no runtime and no I/O; the runtime reaches rooms only through
`RoomTransport`; the runtime's modules import one another without a cycle."""

from __future__ import annotations

from pathlib import Path

from tests.import_graph import SOURCE, find_cycle, imports

ROOMS = SOURCE / "rooms"
RUNTIME = ROOMS / "runtime"
RUNTIME_PACKAGE = "miniroom.rooms.runtime"
ADAPTERS = ("miniroom.transports", "miniroom.server", "miniroom.cli", "mautrix", "sqlite3", "socket")
POLICY_FORBIDDEN = (RUNTIME_PACKAGE, "httpx", "asyncio", *ADAPTERS)


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
    assert find_cycle(graph) is None
