"""`$NAME`, `${NAME}`, `${NAME:-default}`: the model's variables first, then the environment; `$$` escapes."""

from __future__ import annotations

import pytest

from miniroom.config.expand import expand, expand_all

VARIABLES = {"KEY": "from-model", "EMPTY": "", "BOTH": "model-wins"}
ENVIRON = {"HOME": "/home/ann", "BOTH": "env-loses", "EMPTY": "env-fills", "BLANK": ""}

CASES = {
    "no_dollar": ("plain text", "plain text"),
    "bare_name_from_the_model": ("Bearer $KEY", "Bearer from-model"),
    "braced_name_from_the_environment": ("${HOME}/bin", "/home/ann/bin"),
    "the_model_before_the_environment": ("$BOTH", "model-wins"),
    "an_empty_model_value_falls_to_the_environment": ("$EMPTY", "env-fills"),
    "a_name_ends_at_the_first_other_character": ("$HOME.d/$KEY-x", "/home/ann.d/from-model-x"),
    "braces_join_a_name_to_text": ("${KEY}suffix", "from-modelsuffix"),
    "default_when_unset": ("${NOPE:-https://example.org}/mcp", "https://example.org/mcp"),
    "default_when_empty": ("${BLANK:-fallback}", "fallback"),
    "empty_default": ("[${NOPE:-}]", "[]"),
    "default_unused_when_set": ("${KEY:-other}", "from-model"),
    "default_taken_as_written": ("${NOPE:-$HOME}", "$HOME"),
    "double_dollar_is_one_dollar": ("cost: $$5 and $$KEY", "cost: $5 and $KEY"),
    "dollar_before_a_digit_stays": ("$5", "$5"),
    "lone_dollar_at_the_end_stays": ("price$", "price$"),
    "several_in_one_value": ("$KEY:${HOME}:${NOPE:-d}", "from-model:/home/ann:d"),
}


@pytest.mark.parametrize(("text", "expected"), CASES.values(), ids=CASES.keys())
def test_expansion(text: str, expected: str) -> None:
    assert expand(text, VARIABLES, ENVIRON) == (expected, ())


UNSET = {
    "bare": ("Bearer $MISSING", "Bearer $MISSING", "$MISSING is not set"),
    "braced": ("${MISSING}/x", "${MISSING}/x", "$MISSING is not set"),
    "blank_everywhere": ("$BLANK", "$BLANK", "$BLANK is not set"),
    "not_a_name": ("${A B}", "${A B}", "${A B} is not a variable reference"),
    "no_closing_brace": ("x ${KEY", "x ${KEY", "${KEY is not a variable reference"),
    "no_dash_after_colon": ("${KEY:default}", "${KEY:default}", "${KEY:default} is not a variable"),
}


@pytest.mark.parametrize(("text", "expected", "warning"), UNSET.values(), ids=UNSET.keys())
def test_what_cannot_be_filled_stays_as_written_with_a_warning(
    text: str, expected: str, warning: str
) -> None:
    result = expand(text, VARIABLES, ENVIRON)
    assert result.text == expected
    assert len(result.warnings) == 1
    assert result.warnings[0].startswith(warning)


def test_the_warning_for_an_unset_name_says_how_to_fix_it() -> None:
    (warning,) = expand("$MISSING", {}, {}).warnings
    assert warning == (
        "$MISSING is not set in the model's variables nor in the environment, and has no default, so it "
        "stays as written: set MISSING, or write ${MISSING:-default}"
    )


def test_a_name_unset_twice_warns_once() -> None:
    assert len(expand("$MISSING and ${MISSING}", {}, {}).warnings) == 1


def test_warnings_never_carry_a_value() -> None:
    secret = "sk-secret-value"
    text, warnings = expand("$TOKEN $MISSING ${A B}", {"TOKEN": secret}, {})
    assert text.startswith(secret)
    assert warnings
    assert not any(secret in warning for warning in warnings)


def test_expand_all_walks_lists_and_mappings_and_keeps_keys_and_other_values() -> None:
    settings = {"$KEY": {"headers": {"Authorization": "Bearer $KEY"}, "args": ["$HOME", 3, None, "$MISSING"]}}
    expanded, warnings = expand_all(settings, VARIABLES, ENVIRON)
    assert expanded == {
        "$KEY": {
            "headers": {"Authorization": "Bearer from-model"},
            "args": ["/home/ann", 3, None, "$MISSING"],
        }
    }
    assert len(warnings) == 1
    assert warnings[0].startswith("$MISSING is not set")
