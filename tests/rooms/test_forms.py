"""Forms and buttons in a reply: numbered text in the body, and a description for the web chat to draw."""

from __future__ import annotations

from miniroom.rooms.forms import MAX_ITEMS, degrade_forms

BUTTONS = "Deploy now?\n\n```agent.button\nYes\nNo, wait\n```\n\nTell me."
FORM = "````agent.form\nName\nSize: small | medium | large\nTime: HH:MM\n````"


def test_buttons_read_as_numbered_options() -> None:
    text, [form] = degrade_forms(BUTTONS)
    assert text == "Deploy now?\n\nReply with one of:\n1. Yes\n2. No, wait\n\nTell me."
    assert form == {
        "kind": "buttons",
        "options": ["Yes", "No, wait"],
        "text": "Reply with one of:\n1. Yes\n2. No, wait",
    }


def test_a_form_reads_as_numbered_fields_with_their_choices() -> None:
    text, [form] = degrade_forms(FORM)
    assert text == "Reply with:\n1. Name:\n2. Size (small / medium / large):\n3. Time: HH:MM:"
    assert form["fields"] == [
        {"label": "Name", "choices": []},
        {"label": "Size", "choices": ["small", "medium", "large"]},
        {"label": "Time: HH:MM", "choices": []},
    ]


def test_a_block_still_streaming_in_and_other_code_stay_as_written() -> None:
    streaming = "Pick:\n```agent.button\nYes\nN"
    assert degrade_forms(streaming) == (streaming, [])
    code = "```python\nprint(1)\n```"
    assert degrade_forms(code) == (code, [])


def test_a_block_of_many_options_keeps_the_first_ones() -> None:
    many = "```agent.button\n" + "\n".join(f"option {n}" for n in range(50)) + "\n```"
    _text, [form] = degrade_forms(many)
    assert len(form["options"]) == MAX_ITEMS
