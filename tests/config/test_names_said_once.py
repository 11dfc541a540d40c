"""Every name of a project's settings files and of miniroom's secret variables is said once, in `config/`:
the rest of the code imports it, so no two places can come to disagree."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import miniroom

SOURCE = Path(miniroom.__file__).parent
CONFIG = SOURCE / "config"
# The settings folder, a file in it, or one of the variables that hold miniroom's own secrets.
NAMES = re.compile(r"\.miniroom(/[\w.]+)?|MINIROOM_API_(TOKEN|KEY)|MINIROOM_MATRIX_PASSWORD_?")


def places_naming(root: Path) -> list[str]:
    """`file:line: name` for each string of code (not a docstring or message) that is one of NAMES."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and NAMES.fullmatch(node.value):
                found.append(f"{path.relative_to(root.parent)}:{node.lineno}: {node.value}")
    return sorted(found)


def test_settings_files_and_secret_variables_are_named_in_config_only() -> None:
    outside = [place for place in places_naming(SOURCE) if not place.startswith("miniroom/config/")]
    assert outside == [], "import the name from miniroom.config.paths or miniroom.config.secret_variables"


def test_a_second_naming_is_found(tmp_path: Path) -> None:
    package = tmp_path / "miniroom"
    package.mkdir()
    (package / "hooks.py").write_text('HOOKS = Path(".miniroom", "hooks.yml")\nKEY = "MINIROOM_API_KEY"\n')
    assert places_naming(package) == [
        "miniroom/hooks.py:1: .miniroom",
        "miniroom/hooks.py:2: MINIROOM_API_KEY",
    ]
