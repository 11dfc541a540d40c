"""Secrets in settings files: which values are keys and passwords, masked when shown, restored when saved.

A value is secret when its key names one (`ApiKey`, `ProxyPassword`, `OPENAI_KEY`, `X-Api-Key`, any name with
a word such as key, token, secret, password, pass, credential or auth), and so is the value of a `NAME=value`
list item whose NAME does (`MINI_API_KEY=sk-...` in a model's `variables:`), a secret header's value in a
`...Headers` text (`Authorization: Bearer ...`) and the credentials in a URL (`http://user:pass@proxy`).
A reference to a variable (`$SERPER_API_KEY`) is no secret and shows as written.

A masked value sent back is restored from the saved value at the same place: the same key path, where a list
item is matched by its identity (a service's `name`, a variable's NAME), never by how it looks masked.
Pure: data in, data out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from miniroom.config.problems import key_path

MASK = "••••••••"
Path = tuple[Any, ...]  # keys as the data holds them, and list indexes
_SECRET_WORDS = frozenset(
    {
        "key",
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "pass",
        "pwd",
        "passphrase",
        "credential",
        "credentials",
        "auth",
        "authorization",
        "cookie",
        "bearer",
    }
)
_SECRET_ENDINGS = ("key", "token", "secret", "password", "passwd")  # `accesskey`, `authtoken`
_NOT_SECRET = frozenset({"ScriptKey"})  # ScriptSearch's command, which people read and edit
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")  # `MINI_API_KEY`, `apiKey`, `X-Api-Key`
_LINE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.S)
_SCHEMES = frozenset({"", "bearer", "basic", "token", "bot"})  # what may stand before a reference
_REFERENCE = re.compile(r"\$(?:[A-Za-z_]\w*|\{[A-Za-z_]\w*\})")
_HEADER = re.compile(r"^[ \t]*([A-Za-z0-9_-]+)[ \t]*:[ \t]*(.*?)[ \t]*$", re.M)
_URL_USER = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://([^\s/@:?#]*)(?::([^\s/@?#]*))?@")


class SecretLost(ValueError):
    """A masked value came back where no saved value can be found to keep."""

    def __init__(
        self,
        path: Path,
        reason: str = "nothing was saved at this place: a new or renamed entry",
        *,
        line: int | None = None,
    ) -> None:
        self.path = path
        loc = tuple(part if isinstance(part, int | str) else str(part) for part in path)
        where = f"line {line}" if line is not None else key_path(loc, quote=False)
        super().__init__(
            f"{where}: the masked value has no saved value to keep ({reason}): type the secret again, or "
            "press Show before the edit"
        )


@dataclass(frozen=True)
class Part:
    """One secret inside a value's text: `text[start:end]`, known by `label` (a variable's or header's
    name, a URL's user) so that an edited value gives each secret back to its own label."""

    start: int
    end: int
    label: str


def is_secret_name(name: object) -> bool:
    """Whether a key, variable or header name names a secret: `ApiKey`, `OPENAI_KEY`, `X-Auth-Token`."""
    if name in _NOT_SECRET:
        return False
    words = [word.lower() for word in _WORD.findall(str(name))]
    return any(word in _SECRET_WORDS or word.endswith(_SECRET_ENDINGS) for word in words)


def is_secret_value(value: object) -> bool:
    """Whether a secret setting's value is the secret itself: anything but variable references (`$VAR`,
    `${VAR}`), alone or after an authorization scheme (`Bearer ${TOKEN}`)."""
    if isinstance(value, bool) or value is None or isinstance(value, Mapping | list):
        return False
    text = str(value).strip()
    rest = _REFERENCE.sub("", text).strip().lower()
    return bool(text) and not (rest in _SCHEMES and _REFERENCE.search(text))


def secret_parts(path: Path, value: object) -> list[Part]:
    """The secrets in the scalar `value` found at `path`, in order: the whole value under a secret key, else
    the value of a secret `NAME=value` item or header line, and the credentials of each URL in it."""
    key = path[-1] if path else None
    if isinstance(key, str) and is_secret_name(key) and is_secret_value(value):
        text = str(value)  # the space around it (a block's last line break) is no secret
        return [Part(len(text) - len(text.lstrip()), len(text.rstrip()), "")]
    if not isinstance(value, str):
        return []
    parts: list[Part] = []
    line = _LINE.fullmatch(value) if isinstance(key, int) else None
    if line is not None and is_secret_name(line.group(1)) and is_secret_value(line.group(2)):
        parts.append(Part(line.start(2), line.end(2), f"{line.group(1)}="))
    if isinstance(key, str) and "header" in key.lower():
        for header in _HEADER.finditer(value):
            if is_secret_name(header.group(1)) and is_secret_value(header.group(2)):
                parts.append(Part(header.start(2), header.end(2), f"{header.group(1).lower()}:"))
    for index, url in enumerate(_URL_USER.finditer(value)):
        group = 2 if url.group(2) is not None else 1  # the password, else a user that is a token
        if is_secret_value(url.group(group)):
            parts.append(Part(url.start(group), url.end(group), f"url {index} user {url.group(1)}"))
    return _apart(parts)


def _apart(parts: list[Part]) -> list[Part]:
    """The parts in order, without one inside another (a URL in a secret variable's value)."""
    kept: list[Part] = []
    for part in sorted(parts, key=lambda part: (part.start, -part.end)):
        if not kept or part.start >= kept[-1].end:
            kept.append(part)
    return kept


def masked_value(path: Path, value: Any) -> Any:
    """`value` as shown: each secret part replaced by MASK."""
    parts = secret_parts(path, value)
    if not parts:
        return value
    text, shown, at = str(value), [], 0
    for part in parts:
        shown += [text[at : part.start], MASK]
        at = part.end
    return "".join([*shown, text[at:]])


def masked(data: Any) -> tuple[Any, list[str]]:
    """A copy of `data` with every secret replaced by MASK, also where it is written in another value, and
    the secrets that were."""
    found = secrets_of(data)
    secrets = set(found)

    def walk(node: Any, path: Path) -> Any:
        if isinstance(node, Mapping):
            return {key: walk(value, (*path, key)) for key, value in node.items()}
        if isinstance(node, list):
            return [walk(item, (*path, index)) for index, item in enumerate(node)]
        return _shown(path, node, secrets)

    return walk(data, ()), found


def secrets_of(data: Any) -> list[str]:
    """Every secret in `data`, in order."""
    if isinstance(data, Mapping):
        return [secret for key, value in data.items() for secret in _secrets_under((key,), value)]
    return _secrets_under((), data)


def _secrets_under(path: Path, node: Any) -> list[str]:
    if isinstance(node, Mapping):
        return [secret for key, value in node.items() for secret in _secrets_under((*path, key), value)]
    if isinstance(node, list):
        return [secret for index, item in enumerate(node) for secret in _secrets_under((*path, index), item)]
    return [str(node)[part.start : part.end] for part in secret_parts(path, node)]


def _shown(path: Path, value: Any, secrets: set[str]) -> Any:
    """`value` as shown: its secrets masked, or, in a value that holds none, the secrets written there."""
    if secret_parts(path, value):
        return masked_value(path, value)
    return loose(value, secrets) if isinstance(value, str) else value


def loose(text: str, secrets: set[str]) -> str:
    """`text` with each of `secrets` written in it as a word of its own replaced by MASK."""
    for secret in sorted(secrets, key=len, reverse=True):
        text = re.sub(rf"(?<![\w-]){re.escape(secret)}(?![\w-])", MASK, text)
    return text


def unmasked(new: Any, saved: Any) -> Any:
    """`new` with each MASK put back to the secret `saved` (the file as saved) has at the same place;
    raises SecretLost where there is none."""
    secrets = set(secrets_of(saved))

    def walk(node: Any, old: Any, path: Path) -> Any:
        if isinstance(node, Mapping):
            return {key: walk(value, step(node, key, old), (*path, key)) for key, value in node.items()}
        if isinstance(node, list):
            return [walk(item, step(node, index, old), (*path, index)) for index, item in enumerate(node)]
        return restored_value(path, node, old, secrets)

    return walk(new, saved, ())


MISSING: Any = object()  # no saved counterpart


def step(new_parent: Any, key: Any, saved_parent: Any) -> Any:
    """The saved counterpart of `new_parent[key]`, given `saved_parent` is that of `new_parent`."""
    place = _place(new_parent, key, saved_parent)
    return MISSING if place is MISSING else saved_parent[place]


def counterpart(path: Path, new: Any, saved: Any) -> Path | None:
    """Where the value at `path` in `new` was in `saved`: the same keys (an entry renamed in place keeps
    its place), list items found by identity."""
    found: list[Any] = []
    for key in path:
        place = _place(new, key, saved)
        if place is MISSING:
            return None
        found.append(place)
        new, saved = new[key], saved[place]
    return tuple(found)


def _place(new_parent: Any, key: Any, saved_parent: Any) -> Any:
    """The key or index in `saved_parent` of what `new_parent[key]` stands for; MISSING when none."""
    if isinstance(new_parent, Mapping):
        if not isinstance(saved_parent, Mapping):
            return MISSING
        return key if key in saved_parent else _renamed_key(new_parent, key, saved_parent)
    if not isinstance(saved_parent, list):
        return MISSING
    index = counterpart_index(new_parent, key, saved_parent)
    return MISSING if index is None else index


def _renamed_key(new: Mapping[Any, Any], key: Any, saved: Mapping[Any, Any]) -> Any:
    """An entry renamed in place (a model renamed on the Models page): the saved key at the same position,
    when it holds a mapping too and the new mapping has it no more."""
    position = list(new).index(key)
    saved_keys = list(saved)
    if position >= len(saved_keys) or saved_keys[position] in new:
        return MISSING
    was = saved_keys[position]
    return was if isinstance(new[key], Mapping) and isinstance(saved[was], Mapping) else MISSING


def counterpart_index(new: list[Any], index: int, saved: list[Any]) -> int | None:
    """The saved item that `new[index]` stands for: the one of the same identity (a service's `name`, a
    variable's NAME) at the same place, else the only one of it; a named entry renamed in place; for an
    item without identity, the one at the same place. None when there is no such one, or two."""
    identity = _identity(new[index])
    if identity is None or (index < len(saved) and _identity(saved[index]) == identity):
        return index if index < len(saved) else None
    same = [place for place, item in enumerate(saved) if _identity(item) == identity]
    if len(same) == 1:
        return same[0]
    renamed = (
        not same
        and isinstance(new[index], Mapping)
        and index < len(saved)
        and _identity(saved[index]) not in {_identity(item) for item in new}
    )
    return index if renamed else None


def _identity(item: Any) -> tuple[str, str] | None:
    if isinstance(item, Mapping) and isinstance(item.get("name"), str):
        return ("name", item["name"])
    if isinstance(item, str):
        line = _LINE.fullmatch(item)
        return ("variable", line.group(1)) if line else None
    return None


def restored_value(path: Path, value: Any, saved: Any, secrets: set[str] | None = None) -> Any:
    """`value` (a scalar as sent) with each MASK in it replaced by the secret of the same label in `saved`
    (the value saved at that place; as a whole when shown as it was, given the file's `secrets`); raises
    SecretLost when a MASK has no secret to stand for."""
    if not isinstance(value, str) or MASK not in value:
        return value
    if saved is MISSING:
        raise SecretLost(path)
    if value == _shown(path, saved, secrets or set()):
        return saved
    if not secret_parts(path, saved):
        raise SecretLost(path, "no secret was saved at this place")
    labelled = _labelled(path, saved)
    text, at, pieces = value, 0, []
    for label, part in _numbered(secret_parts(path, value)):
        pieces.append(text[at : part.start])
        shown = text[part.start : part.end]
        if shown != MASK and MASK in shown:
            raise SecretLost(path, "only part of the secret is masked")
        if shown == MASK and label not in labelled:
            raise SecretLost(path, "it moved, or what names it changed")
        pieces.append(labelled[label] if shown == MASK else shown)
        at = part.end
    pieces.append(text[at:])
    if MASK in "".join(pieces[::2]):
        raise SecretLost(path, "it is no longer where a secret goes")
    return "".join(pieces)


def _labelled(path: Path, value: Any) -> dict[tuple[str, int], str]:
    text = str(value)
    return {label: text[part.start : part.end] for label, part in _numbered(secret_parts(path, value))}


def _numbered(parts: list[Part]) -> list[tuple[tuple[str, int], Part]]:
    """Each part with its label and how many parts of that label came before it (two `Authorization`s)."""
    seen: dict[str, int] = {}
    numbered = []
    for part in parts:
        seen[part.label] = seen.get(part.label, -1) + 1
        numbered.append(((part.label, seen[part.label]), part))
    return numbered
