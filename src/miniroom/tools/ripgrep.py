"""File search for grep, find and glob: the `rg` binary from the `ripgrep` package, or a Python walk."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import re
import shutil
import sys
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from miniroom.engine import ToolError, ToolResult
from miniroom.tools.environment import tool_environment
from miniroom.tools.fence import Fence, refuse
from miniroom.tools.found import FoundFile, files_inside
from miniroom.tools.output import keep_head
from miniroom.tools.paths import display_path, inside_path, open_folder

# Hidden files count (.github, .env.example), .git never does; an rg config file must not change the output.
# Without --no-require-git, rg ignores .gitignore outside a git repository, unlike the Python walk.
COMMON_RG_ARGS = ("--no-config", "--no-require-git", "--hidden", "--glob=!.git")
_STREAM_LIMIT = 4 * 1024 * 1024  # longest stdout line read at once; grep lines are cut by rg long before that
_GLOB_TOKEN = re.compile(r"\*\*/|\*\*|\*|\?|\[[^\]/]+\]|\{[^{}]*\}|.", re.DOTALL)


@dataclass(frozen=True)
class RgOutput:
    lines: list[str]
    stderr: str
    returncode: int
    stopped_early: bool  # we stopped reading at max_lines and ended rg


def find_rg() -> str | None:
    """The rg binary: the one installed next to this Python (the `ripgrep` package) first, then PATH."""
    name = "rg.exe" if os.name == "nt" else "rg"
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("rg")


async def run_rg(
    rg: str, args: Sequence[str], cwd: Path, max_lines: int | None = None, *, stdin: int | None = None
) -> RgOutput:
    """Run rg in `cwd` and read at most `max_lines` lines; rg is ended when we stop early or are cancelled."""
    try:
        process = await asyncio.create_subprocess_exec(
            rg,
            *COMMON_RG_ARGS,
            *args,
            cwd=cwd,
            env=tool_environment(),
            stdin=asyncio.subprocess.DEVNULL if stdin is None else stdin,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            limit=_STREAM_LIMIT,
        )
    except OSError as error:
        if error.filename != cwd:
            raise
        raise ToolError(
            f"The folder {cwd} changed as the search started ({error.strerror}). "
            "Try again once nothing else is changing it."
        ) from None
    try:
        return await _communicate(process, max_lines)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def _communicate(process: asyncio.subprocess.Process, max_lines: int | None) -> RgOutput:
    assert process.stdout is not None
    assert process.stderr is not None
    stderr_task = asyncio.ensure_future(process.stderr.read())
    try:
        lines: list[str] = []
        stopped_early = False
        while (raw := await process.stdout.readline()) != b"":
            if max_lines is not None and len(lines) >= max_lines:
                stopped_early = True
                process.kill()
                break
            lines.append(raw.decode("utf-8", "replace").rstrip("\r\n"))
        returncode = await process.wait()
        stderr = (await stderr_task).decode("utf-8", "replace")
    finally:
        stderr_task.cancel()
    return RgOutput(lines, stderr, returncode, stopped_early)


@contextlib.asynccontextmanager
async def search_time_limit(seconds: float) -> AsyncIterator[None]:
    """Cancel the search (ending rg) after `seconds`, and tell the model how to make it cheaper."""
    try:
        async with asyncio.timeout(seconds):
            yield
    except TimeoutError:
        raise ToolError(
            f"The search took longer than {seconds:g} s and was stopped. "
            "Search a smaller folder or use a more specific pattern."
        ) from None


async def list_files(
    root: Path,
    *,
    top: Path,
    fence: Fence | None = None,
    pattern: str | None = None,
    path_regex: re.Pattern[str] | None = None,
) -> list[FoundFile]:
    """Files under `root` (named relative to it), honouring .gitignore (from `top` down), but those `fence`
    hides, each still beneath `top` when checked after the search.

    `pattern` filters with rg's --glob rules: without a slash it matches file names at any depth;
    `path_regex` must match the whole relative name.
    """
    rg = find_rg()
    if rg is None:
        files = await asyncio.to_thread(walk_files, root, top)
        names = [name for name in files if pattern is None or matches_name_glob(pattern, name)]
    else:
        args = ["--files", f"--glob={pattern}"] if pattern else ["--files"]
        output = await run_rg(rg, args, cwd=root)
        if output.returncode not in (0, 1) and not output.lines:
            raise ToolError(f"rg could not list files:\n{output.stderr.strip()}")
        names = output.lines
    if path_regex is not None:
        names = [name for name in names if path_regex.fullmatch(name)]
    if fence is not None:
        names = [name for name in names if not fence.hides(root / name)]
    return await asyncio.to_thread(files_inside, top, root, names)


@functools.lru_cache(maxsize=256)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """A path glob as a regex: `*` and `?` stay in one folder, `**` crosses folders, `{a,b}` alternates."""
    return re.compile(_glob_regex(pattern), re.DOTALL)


def _glob_regex(pattern: str) -> str:
    parts: list[str] = []
    for token in _GLOB_TOKEN.findall(pattern):
        if token == "**/":
            parts.append("(?:.*/)?")
        elif token == "**":
            parts.append(".*")
        elif token == "*":
            parts.append("[^/]*")
        elif token == "?":
            parts.append("[^/]")
        elif token.startswith("[") and len(token) > 1:
            body = token[1:-1]
            parts.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
        elif token.startswith("{") and len(token) > 1:
            parts.append("(?:" + "|".join(_glob_regex(alt) for alt in token[1:-1].split(",")) + ")")
        else:
            parts.append(re.escape(token))
    return "".join(parts)


def matches_name_glob(pattern: str, relative_path: str) -> bool:
    """rg's --glob rule: a pattern without a slash matches the file name, else the whole relative path."""
    if "/" not in pattern:
        return compile_glob(pattern).fullmatch(relative_path.rsplit("/", 1)[-1]) is not None
    return compile_glob(pattern.lstrip("/")).fullmatch(relative_path) is not None


@dataclass(frozen=True)
class IgnoreRule:
    """One .gitignore line; `base` is the folder holding the file, relative to the walk's top ("" for it)."""

    base: str
    regex: re.Pattern[str]
    anchored: bool
    dir_only: bool
    negated: bool

    def matches(self, relative_path: str, is_dir: bool) -> bool:
        if self.dir_only and not is_dir:
            return False
        if self.base:
            if not relative_path.startswith(self.base + "/"):
                return False
            relative_path = relative_path[len(self.base) + 1 :]
        subject = relative_path if self.anchored else relative_path.rsplit("/", 1)[-1]
        return self.regex.fullmatch(subject) is not None


def parse_gitignore(text: str, base: str) -> list[IgnoreRule]:
    """The simple part of gitignore: comments, `!` negation, `/` at the end for folders, anchoring slashes."""
    rules = []
    for raw_line in text.splitlines():
        line = raw_line.rstrip()
        if not line or line.startswith("#"):
            continue
        negated = line.startswith("!")
        line = line[1:] if negated else line
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        rules.append(IgnoreRule(base, compile_glob(line.lstrip("/")), anchored, dir_only, negated))
    return rules


def _is_ignored(rules: list[IgnoreRule], relative_path: str, is_dir: bool) -> bool:
    ignored = False
    for rule in rules:  # the last matching rule wins, as in git
        if rule.matches(relative_path, is_dir):
            ignored = not rule.negated
    return ignored


def _read_rules(folder: Path, base: str) -> list[IgnoreRule]:
    try:
        return parse_gitignore((folder / ".gitignore").read_text("utf-8", "replace"), base)
    except OSError:
        return []


def _relative(path: Path, top: Path) -> str:
    relative = path.relative_to(top).as_posix()
    return "" if relative == "." else relative


def walk_files(root: Path, top: Path | None = None) -> list[str]:
    """The fallback for `rg --files`: skips .git, symlinks and what .gitignore files from `top` down say."""
    top = top or root
    rules: list[IgnoreRule] = []
    for folder in reversed(root.relative_to(top).parents):  # the folders between top and root hold rules too
        rules += _read_rules(top / folder, _relative(top / folder, top))
    found: list[str] = []
    pending = [root]
    while pending:
        folder = pending.pop()
        rules += _read_rules(folder, _relative(folder, top))
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue  # unreadable folders are skipped, as rg does
        for entry in entries:
            relative = _relative(Path(entry.path), top)
            is_dir = entry.is_dir(follow_symlinks=False)
            if entry.is_symlink() or entry.name == ".git" or _is_ignored(rules, relative, is_dir):
                continue
            if is_dir:
                pending.append(Path(entry.path))
            elif entry.is_file(follow_symlinks=False):
                found.append(_relative(Path(entry.path), root))
    return sorted(found)


def resolve_search_folder(cwd: Path, user_path: str, fence: Fence) -> Path:
    """The folder a file search starts from: inside the working folder, existing, not a file, not hidden."""
    folder = inside_path(cwd, user_path)
    refuse(fence.hidden(folder.path, folder=True), folder, user_path)
    try:
        os.close(open_folder(folder))
    except FileNotFoundError:
        raise ToolError(f"Folder not found: {user_path}. Check the path with ls.") from None
    except NotADirectoryError:
        raise ToolError(
            f"{user_path} is a file, not a folder. Give its folder as path, or read the file."
        ) from None
    except OSError as error:
        raise ToolError(f"Cannot search {user_path}: {error.strerror}.") from None
    return folder.path


def path_under(cwd: Path, folder: Path, name: str) -> str:
    """A path found under `folder`, shown relative to the working folder."""
    prefix = display_path(cwd, folder)
    return name if prefix == "." else f"{prefix}/{name}"


def file_list_result(paths: list[str], limit: int, none_found: str) -> ToolResult:
    """One path a line, at most `limit` of them and 50 KB, with a note saying what was left out."""
    if not paths:
        return ToolResult.text(none_found)
    capped = keep_head("\n".join(paths[:limit]))
    if len(paths) <= limit and not capped.truncated:
        return ToolResult.text(capped.text)
    note = f"[Showing {capped.kept_lines} of {len(paths)} files. Narrow the pattern or path, or raise limit.]"
    return ToolResult.text(f"{capped.text}\n\n{note}")
