"""`pip install miniroom` as a user gets it: the wheel built from this tree, installed into a fresh venv, runs
`miniroom init` and then serves the web chat, its page and its static files from the installed package."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import httpx

from tests.conftest import clean_env
from tests.runtime.serve_process import ServeProcess

ROOT = Path(__file__).resolve().parents[2]
# The dependencies come from the test run's own environment (a .pth line), so nothing is downloaded.
DEPENDENCIES = Path(sysconfig.get_paths()["purelib"])
BUILD_TIMEOUT = 300.0
STATIC = ("app.js", "app.css", "vendor/purify.min.js")


def run(*command: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
    )
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def build_wheel(folder: Path, env: dict[str, str]) -> Path:
    """The wheel of a copy of this tree (the build's own files stay out of the work tree)."""
    source = folder / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    ignored = shutil.ignore_patterns("__pycache__", "*.egg-info")
    shutil.copytree(ROOT / "src", source / "src", ignore=ignored)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", folder / "dist", source, env=env)
    [wheel] = (folder / "dist").glob("miniroom-*.whl")
    return wheel


def fresh_venv(folder: Path, wheel: Path, env: dict[str, str]) -> Path:
    """A new venv with the wheel installed, its dependencies seen through a .pth file; its bin folder."""
    venv = folder / "venv"
    run(sys.executable, "-m", "venv", "--without-pip", venv, env=env)
    python = venv / "bin" / "python"
    site = Path(
        run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])", env=env).strip()
    )
    (site / "dependencies.pth").write_text(f"{DEPENDENCIES}\n", encoding="utf-8")
    run(
        sys.executable,
        "-m",
        "pip",
        "--python",
        python,
        "install",
        "--quiet",
        "--no-deps",
        "--no-index",
        wheel,
    )
    return venv / "bin"


def test_the_installed_wheel_serves_the_chat_after_init(tmp_path: Path) -> None:
    env = {k: v for k, v in clean_env(tmp_path / "mini").items() if k != "PYTHONPATH"}
    wheel = build_wheel(tmp_path, env)
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    assert {f"miniroom/server/static/{name}" for name in STATIC} <= names
    bin_dir = fresh_venv(tmp_path, wheel, env)
    where = run(bin_dir / "python", "-c", "import miniroom; print(miniroom.__file__)", env=env)
    assert where.startswith(str(tmp_path / "venv")), f"miniroom was imported from {where}"
    project = tmp_path / "project"
    project.mkdir()
    assert "created config.yaml" in run(bin_dir / "miniroom", "init", cwd=project, env=env)
    served = ServeProcess(
        project / "config.yaml", env, tmp_path / "serve.log", program=str(bin_dir / "miniroom")
    )
    served.start()
    try:
        page = httpx.get(served.base)
        assert page.status_code == 200
        assert "text/html" in page.headers["content-type"]
        for name in STATIC:
            response = httpx.get(f"{served.base}static/{name}")
            assert response.status_code == 200, name
            assert response.content == (ROOT / "src/miniroom/server/static" / name).read_bytes()
        assert httpx.get(f"{served.base}healthz").text == "ok\n"
    finally:
        stopped = served.stop()
    assert stopped == 0, served.output()
