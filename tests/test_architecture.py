"""The layers as a test: no import goes up the layer order or forms a cycle, and the library layers `llm`
`llm`, `engine`, `tools`, `web` and `agent` are reached only through their one public face, which exports
exactly its public names."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

import miniroom.agent
import miniroom.engine
import miniroom.llm
import miniroom.tools
import miniroom.web
from tests.import_graph import SOURCE, find_cycle, source_graph

# The layer order of README's Development section, first the one every other may import: a package imports
# only packages of rows before its own. Packages in one row are peers and import none of each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("config", "agent_cli"),  # agent_cli: the `miniroom-agent` client, standard library only
    ("llm",),
    ("engine",),
    ("tools",),
    ("mcp", "hooks"),
    ("web",),  # after mcp: its RemoteBrowser service speaks MCP through mcp's SDK session
    ("agent",),
    ("rooms",),
    ("rooms.runtime",),
    ("minimal",),
    ("transports.embedded", "transports.matrix"),
    ("server",),
    ("cli",),
    ("testing",),
)
RANK = {f"miniroom.{package}": rank for rank, row in enumerate(LAYERS) for package in row}
# Packages only grouping layers: they hold a docstring (and the version), and anyone may import them.
GROUPS = ("miniroom", "miniroom.transports")
FACES = (miniroom.llm, miniroom.engine, miniroom.tools, miniroom.web, miniroom.agent)


def layer_of(module: str) -> str | None:
    """The layer package `module` belongs to (the longest one it is in), or None for a grouping package."""
    owners = [package for package in RANK if module == package or module.startswith(f"{package}.")]
    return max(owners, key=len) if owners else None


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """`module -> import` for each import of a layer at or after the importer's own row (but its own)."""
    found = []
    for module, imported in graph.items():
        own = layer_of(module)
        for name in sorted(imported):
            target = layer_of(name)
            if own is None or target is None or target == own:
                continue
            if RANK[target] >= RANK[own]:
                found.append(f"{module} -> {name} ({target} is not before {own} in LAYERS)")
    return found


def test_every_package_has_its_place_in_the_layers() -> None:
    unplaced = sorted(
        module for module in source_graph() if layer_of(module) is None and module not in GROUPS
    )
    assert unplaced == [], "add each new package to LAYERS here and to README's Development section"


def test_no_import_goes_up_the_layers() -> None:
    assert upward_imports(source_graph()) == []


def test_the_grouping_packages_import_nothing_of_miniroom() -> None:
    graph = source_graph()
    assert [graph[group] for group in GROUPS] == [set() for _ in GROUPS]


def test_no_imports_form_a_cycle() -> None:
    assert find_cycle(source_graph()) is None


def around_faces(graph: dict[str, set[str]], faces: list[str]) -> list[str]:
    """`module -> import` for each import of a face's module from outside its package."""
    return [
        f"{module} -> {name}"
        for module, imported in graph.items()
        for name in sorted(imported)
        for face in faces
        if name.startswith(f"{face}.") and not module.startswith(f"{face}.") and module != face
    ]


def test_other_layers_reach_a_faced_layer_only_through_its_face() -> None:
    around = around_faces(source_graph(), [face.__name__ for face in FACES])
    assert around == [], "import these names from the package itself (add them to its __init__.py)"


@pytest.mark.parametrize("face", FACES, ids=lambda face: face.__name__)
def test_a_face_exports_exactly_its_public_names(face: ModuleType) -> None:
    for name in face.__all__:  # a face that loads its names at first use holds them from then on
        getattr(face, name)
    public = [
        name
        for name, value in vars(face).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    ]
    assert sorted(face.__all__) == sorted(public)


def test_the_room_rules_use_nothing_of_the_agent_layer() -> None:
    """`rooms` decides who answers what; only `rooms.runtime` builds and runs agents."""
    graph = source_graph()
    used = [
        f"{module} -> {name}"
        for module, imported in graph.items()
        if layer_of(module) == "miniroom.rooms"
        for name in sorted(imported)
        if layer_of(name) == "miniroom.agent"
    ]
    assert used == []


def test_the_readme_lists_the_layers_in_their_order() -> None:
    readme = (SOURCE.parent.parent / "README.md").read_text(encoding="utf-8")
    paragraph = re.search(r"The code is in layers.*?\n\n", readme, re.S)
    assert paragraph is not None
    present = [package for row in LAYERS for package in row if Path(SOURCE, *package.split(".")).is_dir()]
    packages = {package.partition(".")[0] for package in present}
    listed = [name for name in re.findall(r"`([a-z_]+)/`", paragraph.group()) if name in packages]
    assert listed == list(dict.fromkeys(package.partition(".")[0] for package in present))


def test_an_upward_import_is_found() -> None:
    graph = {"miniroom.config.problems": {"miniroom.engine.agent"}, "miniroom.engine.agent": set()}
    assert upward_imports(graph) == [
        "miniroom.config.problems -> miniroom.engine.agent (miniroom.engine is not before miniroom.config "
        "in LAYERS)"
    ]


def test_an_import_around_a_face_is_found() -> None:
    graph = {"miniroom.rooms.runtime.turns": {"miniroom.agent.cli_access", "miniroom.agent"}}
    assert around_faces(graph, ["miniroom.agent"]) == [
        "miniroom.rooms.runtime.turns -> miniroom.agent.cli_access"
    ]


def test_importing_the_faces_loads_none_of_their_modules() -> None:
    script = (
        "import sys, miniroom.agent, miniroom.tools, miniroom.web\n"
        "print(sorted(name for name in sys.modules if name.startswith(('miniroom.agent.', "
        "'miniroom.tools.', 'miniroom.web.'))))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout == "[]\n"


def test_a_peer_import_is_found() -> None:
    graph = {"miniroom.transports.matrix.sync": {"miniroom.transports.embedded.store"}}
    assert len(upward_imports(graph)) == 1


def test_a_cycle_is_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
