"""Forms and buttons in an agent's reply: fenced `agent.button` and `agent.form` blocks, as the system prompt
teaches them, become plain text with numbered options (what a Matrix client shows) and a description the
web chat draws as buttons or a form. Pure: text in, text and descriptions out.

    ```agent.button          ```agent.form
    Yes                      Name
    No                       Size: small | medium | large
    ```                      ```
"""

from __future__ import annotations

import re
from typing import Any

KINDS = {"agent.button": "buttons", "agent.form": "form"}
_OPENING = re.compile(r"^ {0,3}(`{3,}|~{3,})[ \t]*(agent\.button|agent\.form)[ \t]*$")
_CHOICES = re.compile(r"\s*\|\s*")
MAX_ITEMS = 20  # buttons or fields in one block; more are left out
MAX_ITEM_CHARS = 200


def degrade_forms(text: str) -> tuple[str, list[dict[str, Any]]]:
    """`text` with each closed form or buttons block written as numbered text, and each block described:
    `{"kind": "buttons", "options": [...], "text": ...}` or `{"kind": "form", "fields": [{"label",
    "choices"}], "text": ...}`, `text` being the plain text that stands for it in the body."""
    lines = text.split("\n")
    out: list[str] = []
    forms: list[dict[str, Any]] = []
    index = 0
    while index < len(lines):
        opening = _OPENING.match(lines[index])
        end = _closing(lines, index, opening.group(1)) if opening else None
        if opening is None or end is None:  # an ordinary line, or a block still streaming in
            out.append(lines[index])
            index += 1
            continue
        items = [line.strip()[:MAX_ITEM_CHARS] for line in lines[index + 1 : end] if line.strip()][:MAX_ITEMS]
        form = _described(KINDS[opening.group(2)], items)
        out.append(form["text"])
        forms.append(form)
        index = end + 1
    return "\n".join(out), forms


def _closing(lines: list[str], start: int, fence: str) -> int | None:
    for index in range(start + 1, len(lines)):
        stripped = lines[index].strip()
        if (
            stripped
            and stripped[0] == fence[0]
            and set(stripped) == {fence[0]}
            and len(stripped) >= len(fence)
        ):
            return index
    return None


def _described(kind: str, items: list[str]) -> dict[str, Any]:
    if kind == "buttons":
        numbered = [f"{number}. {option}" for number, option in enumerate(items, 1)]
        return {"kind": kind, "options": items, "text": "\n".join(["Reply with one of:", *numbered])}
    fields = [_field(item) for item in items]
    numbered = [
        f"{number}. {field['label']}"
        + (f" ({' / '.join(field['choices'])})" if field["choices"] else "")
        + ":"
        for number, field in enumerate(fields, 1)
    ]
    return {"kind": kind, "fields": fields, "text": "\n".join(["Reply with:", *numbered])}


def _field(item: str) -> dict[str, Any]:
    """`Label`, or `Label: choice | choice`: only a `|` makes what follows the colon a list of choices."""
    label, _, rest = item.partition(":")
    choices = [choice for choice in _CHOICES.split(rest.strip()) if choice] if "|" in rest else []
    return {"label": label.strip() if choices else item.rstrip(":").strip(), "choices": choices}
