"""A lazy face: its names load with their module at first use, and a name it lacks is an AttributeError."""

from __future__ import annotations

from pathlib import Path

import pytest

import miniroom.web
from miniroom.config.faces import typed_imports


def test_a_face_names_the_module_of_each_name() -> None:
    homes = typed_imports(Path(miniroom.web.__file__))
    assert homes["web_tools"] == ("miniroom.web.offer", "web_tools")
    assert set(homes) == set(miniroom.web.__all__)


def test_a_name_imported_under_another_name_loads_the_original() -> None:
    import miniroom.tools
    from miniroom.tools.process import run

    assert typed_imports(Path(miniroom.tools.__file__))["run_process"] == ("miniroom.tools.process", "run")
    assert miniroom.tools.run_process is run


def test_a_name_the_face_lacks_is_an_attribute_error_naming_the_face() -> None:
    missing = "no_such_name"
    with pytest.raises(AttributeError, match=r"module 'miniroom\.web' has no attribute 'no_such_name'"):
        getattr(miniroom.web, missing)
