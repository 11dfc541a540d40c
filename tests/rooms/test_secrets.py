"""The credential detector: one row per kind it finds, and ordinary chat it must leave alone."""

from __future__ import annotations

import pytest

from miniroom.rooms.secrets import credential_kind, has_credential

FOUND = {
    "pem_private_key": ("here:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn...", "private_key"),
    "rsa_private_key": ("-----BEGIN RSA PRIVATE KEY-----", "private_key"),
    "aws_access_key": ("use AKIAIOSFODNN7EXAMPLE for now", "aws_access_key"),
    "github_classic_token": ("ghp_" + "a1B2" * 9, "github_token"),
    "github_fine_grained_token": ("github_pat_" + "x" * 60, "github_token"),
    "gitlab_token": ("glpat-abcdefghijklmnopqrst", "gitlab_token"),
    "slack_token": ("xoxb-123456789012-abcdefghij", "slack_token"),
    "openai_key": ("OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz", "api_key"),
    "anthropic_key": ("sk-ant-api03-abcdefghijklmnopqrstuv", "api_key"),
    "stripe_live_key": ("sk_live_51HabcdefghijklmnopqrstU", "api_key"),
    "google_api_key": ("AIza" + "b" * 35, "google_api_key"),
    "matrix_access_token": ("syt_bWluaXJvb20_abcdefghijkl_0a1b2c", "matrix_token"),
    "jwt": ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3In0.abcdefghijklmn", "jwt"),
    "bearer_header": ("Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345", "bearer_token"),
    "credentials_in_url": ("postgres://admin:hunter22@db.internal:5432/app", "url_credentials"),
    "password_assignment": ("password=hunter2!", "assigned_secret"),
    "password_in_prose": ("the wifi password is Tr0ub4dor&3", "assigned_secret"),
    "quoted_token": ('{"token": "abc123def456"}', "assigned_secret"),
    "api_key_colon": ("API_KEY: 0123456789abcdef", "assigned_secret"),
}

ORDINARY = {
    "forgotten_password": "I forgot my password again, can someone reset it?",
    "token_bucket": "the token bucket algorithm limits the rate",
    "short_sk": "ask sk-1 about it",
    "plain_url": "see https://example.org/docs/setup",
    "email": "mail alice@example.org",
    "matrix_id": "ping @alice:example.org",
    "password_policy": "passwords must be 12 characters",
    "thanks": "thanks!",
    "code": "def token(): return None",
}


@pytest.mark.parametrize(("text", "kind"), FOUND.values(), ids=FOUND.keys())
def test_credentials_are_found_by_kind(text: str, kind: str) -> None:
    assert credential_kind(text) == kind
    assert has_credential(["hello", text])


@pytest.mark.parametrize("text", ORDINARY.values(), ids=ORDINARY.keys())
def test_ordinary_chat_is_left_alone(text: str) -> None:
    assert credential_kind(text) is None
    assert not has_credential([text])
