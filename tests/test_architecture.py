"""The layers as a test: no import goes up the layer order or forms a cycle, and the library layers `llm`
and `engine` are reached only through their one public face, which exports exactly its public names."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

import miniroom.engine
import miniroom.llm
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
FACES = (miniroom.llm, miniroom.engine)


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


def test_other_layers_reach_llm_and_engine_only_through_their_face() -> None:
    faces = [face.__name__ for face in FACES]
    graph = source_graph()
    around = [
        f"{module} -> {name}"
        for module, imported in graph.items()
        for name in sorted(imported)
        for face in faces
        if name.startswith(f"{face}.") and not module.startswith(f"{face}.") and module != face
    ]
    assert around == [], "import these names from the package itself (add them to its __all__)"


@pytest.mark.parametrize("face", FACES, ids=lambda face: face.__name__)
def test_a_face_exports_exactly_its_public_names(face: ModuleType) -> None:
    public = [
        name
        for name, value in vars(face).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)
    ]
    assert sorted(face.__all__) == sorted(public)


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


def test_a_peer_import_is_found() -> None:
    graph = {"miniroom.transports.matrix.sync": {"miniroom.transports.embedded.store"}}
    assert len(upward_imports(graph)) == 1


def test_a_cycle_is_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
