"""Fixtures for the tool tests."""

from __future__ import annotations

import pytest

from tests.tools.file_tool_helpers import hide_rg


@pytest.fixture(params=["rg", "python"])
def search_backend(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> str:
    """Run a search test with the real rg, then again with the pure-Python fallback."""
    if request.param == "python":
        hide_rg(monkeypatch, tmp_path_factory.mktemp("no-rg"))
    return str(request.param)
