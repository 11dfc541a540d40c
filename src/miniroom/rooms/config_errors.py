"""Config problems for people: YAML reading with line marks, pydantic errors rewritten to key paths."""

from __future__ import annotations

import json
import re
import types
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from difflib import get_close_matches
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import yaml
from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

Loc = tuple[str | int, ...]
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_SECRET_KEY = re.compile(r"password|passwd|token|secret|api_?key|access_key", re.I)
_MAX_PROBLEMS = 20
_PLAIN_MESSAGES = {
    "missing": "this key is required",
    "model_type": "must be a mapping (indented key: value lines)",
    "dict_type": "must be a mapping (indented key: value lines)",
    "list_type": "must be a list (lines starting with -)",
    "string_type": "must be text",
    "bool_type": "must be true or false",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
}


class ConfigError(ValueError):
    """`config.yaml` is wrong; the message names the file, line, key and fix of every problem."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong at `loc`; `at_key` points the line at the key itself (e.g. an unknown key)."""

    loc: Loc
    message: str
    at_key: bool = False
    line: int | None = None


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """`did you mean X?` for the closest candidate, or None when nothing is close."""
    close = get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"did you mean {close[0]}?" if close else None


def read_yaml(text: str, source: str) -> tuple[object, yaml.Node | None]:
    """Parse `text` keeping the node tree, whose marks give each key's line; duplicate keys are errors."""
    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return None, None
        duplicates = list(_duplicate_keys(root, ()))
        if duplicates:
            raise ConfigError(describe(duplicates, source, root))
        return loader.construct_document(root), root
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{source}:{mark.line + 1}" if mark else source
        problem = exc.problem or exc.context or "unreadable"
        raise ConfigError(
            f"{where}: not valid YAML: {problem}; check the indentation and quoting there."
        ) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{source}: not valid YAML: {exc}") from None
    finally:
        loader.dispose()


def _duplicate_keys(node: yaml.Node, loc: Loc) -> Iterable[Problem]:
    if isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            yield from _duplicate_keys(item, (*loc, index))
    elif isinstance(node, yaml.MappingNode):
        first_line: dict[str, int] = {}
        for key_node, value_node in node.value:
            key = str(key_node.value)
            line = key_node.start_mark.line + 1
            if key in first_line and key != "<<":
                message = f"appears twice (first on line {first_line[key]}); keep one"
                yield Problem((*loc, key), message, line=line)
            first_line.setdefault(key, line)
            yield from _duplicate_keys(value_node, (*loc, key))


def validation_problems(exc: ValidationError, model: type[BaseModel]) -> list[Problem]:
    """pydantic's errors as problems at plain key paths (union tags and `[key]` markers dropped)."""
    problems = []
    for error in exc.errors(include_url=False):
        loc, parent = _walk(model, error["loc"][:-1]) if error["loc"] else ((), None)
        loc = (*loc, error["loc"][-1]) if error["loc"] else loc
        if error["type"] == "extra_forbidden":
            problems.append(Problem(loc, _unknown_key(str(loc[-1]), parent), at_key=True))
        else:
            problems.append(Problem(tuple(part for part in loc if part != "[key]"), _plain(error)))
    return problems


def describe(problems: Sequence[Problem], source: str, root: yaml.Node | None) -> str:
    """One `file:line: key.path: message` line per problem."""
    located = [(problem.line or _line_of(root, problem.loc, problem.at_key), problem) for problem in problems]
    located.sort(key=lambda pair: pair[0] or 0)
    lines = []
    for line, problem in located[:_MAX_PROBLEMS]:
        where = f"{source}:{line}" if line else source
        lines.append(f"{where}: {key_path(problem.loc)}: {problem.message}")
    if len(problems) > _MAX_PROBLEMS:
        lines.append(f"{source}: … and {len(problems) - _MAX_PROBLEMS} more problems")
    return "\n".join(lines)


def key_path(loc: Loc) -> str:
    """`("agents", "helper", "rooms", 0)` -> `agents.helper.rooms[0]`; odd keys are quoted."""
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif _PLAIN_KEY.fullmatch(part):
            path += f".{part}" if path else part
        else:
            path += f"[{json.dumps(part)}]"
    return path or "(the top level)"


def _unknown_key(key: str, parent: Any) -> str:
    if _SECRET_KEY.search(key):
        return "unknown key: passwords and tokens do not belong in config.yaml; set them in the environment"
    allowed = list(parent.model_fields) if _is_model(parent) else []
    hint = did_you_mean(key, allowed)
    if hint:
        return f"unknown key ({hint})"
    return f"unknown key; the keys allowed here are: {', '.join(allowed)}" if allowed else "unknown key"


def _plain(error: ErrorDetails) -> str:
    kind, ctx = error["type"], error.get("ctx", {})
    if kind == "value_error":
        return str(ctx.get("error", error["msg"]))
    if kind == "union_tag_invalid":
        return f"provider must be one of {ctx['expected_tags']} (got {ctx['tag']!r})"
    if kind == "union_tag_not_found":
        return f"needs a {ctx['discriminator']} key"
    message = _PLAIN_MESSAGES.get(kind) or error["msg"].replace("Input should be", "must be", 1)
    if kind == "missing":
        return message
    return f"{message} (got {_short(error.get('input'))})"


def _short(value: object) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= 40 else text[:37] + "..."


def _walk(model: type[BaseModel], loc: Loc) -> tuple[Loc, Any]:
    """Follow `loc` through the schema: the path without union tags, and the type found at its end."""
    shown: list[str | int] = []
    node: Any = model
    for part in loc:
        node = _unwrap(node)
        tagged = _tagged_members(node)
        if tagged is not None:
            node = tagged.get(part)
            continue
        if part != "[key]":
            shown.append(part)
        if _is_model(node):
            field = node.model_fields.get(str(part))
            node = field.annotation if field else None
        elif get_origin(node) in (dict, list):
            node = get_args(node)[-1]
        else:
            node = None
    return tuple(shown), _unwrap(node)


def _unwrap(node: Any) -> Any:
    """Strip `Annotated[...]` and a `| None`."""
    if get_origin(node) is Annotated:
        node = get_args(node)[0]
    if get_origin(node) in (Union, types.UnionType):
        members = [arg for arg in get_args(node) if arg is not type(None)]
        if len(members) == 1:
            return _unwrap(members[0])
    return node


def _tagged_members(node: Any) -> dict[object, Any] | None:
    """For a union of models, each model by its literal tag values (pydantic puts the tag in `loc`)."""
    if get_origin(node) not in (Union, types.UnionType):
        return None
    members: dict[object, Any] = {}
    for member in get_args(node):
        if _is_model(member):
            for field in member.model_fields.values():
                if get_origin(field.annotation) is Literal:
                    members.update(dict.fromkeys(get_args(field.annotation), member))
    return members


def _is_model(node: Any) -> bool:
    return isinstance(node, type) and issubclass(node, BaseModel)


def _line_of(root: yaml.Node | None, loc: Loc, at_key: bool) -> int | None:
    """The 1-based line of `loc` in the YAML tree, else of its nearest ancestor that exists."""
    if root is None:
        return None
    node, key_node = root, None
    for part in loc:
        child = _child(node, part)
        if child is None:
            break
        key_node, node = child
    chosen = key_node if at_key and key_node is not None else node
    return chosen.start_mark.line + 1


def _child(node: yaml.Node, part: str | int) -> tuple[yaml.Node | None, yaml.Node] | None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if str(key_node.value) == str(part):
                return key_node, value_node
    elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
        return None, node.value[part]
    return None
