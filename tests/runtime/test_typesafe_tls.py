"""The TypeSafe judge reaches System One over HTTPS with the certificates every miniroom client trusts: a
company's authority named by SSL_CERT_FILE, in the one TLS context the process shares."""

from __future__ import annotations

import pytest

from miniroom.config.tls import trusted_tls_context
from miniroom.rooms.judge_context import JudgeRequest
from miniroom.rooms.judgment import Failure
from miniroom.rooms.runtime.typesafe import TypesafeClient
from tests.webtools.servers import Answer, company_tls, serve, trust_defaults_only, trusting

REQUEST = JudgeRequest(question="Should the agent answer?", guidance="", sections=())
ANSWER = {"model": "jev-1.14.0", "answers": {"decision": {"type": "noul", "noul": 0.83}}}


async def test_the_judge_trusts_the_authority_ssl_cert_file_names(monkeypatch: pytest.MonkeyPatch) -> None:
    served, authority = company_tls()
    with serve(lambda seen: Answer.json(ANSWER), served) as site:
        client = TypesafeClient({"TYPESAFE_API_KEY": "ts-test", "TYPESAFE_BASE_URL": site.url})
        trust_defaults_only(monkeypatch)
        untrusted = await client.ask(REQUEST, 30)
        with trusting(authority, monkeypatch):
            answer = await client.ask(REQUEST, 30)
            # made with the process's one shared context, which loaded the authority for it
            shared_authorities = trusted_tls_context().cert_store_stats()["x509_ca"]
    trusted_tls_context.cache_clear()
    assert (untrusted.failure, untrusted.detail) == (
        Failure.PROVIDER_ERROR,
        f"ConnectError from {client.url}",
    )
    assert len(site.seen) == 1
    assert (answer.probability, answer.failure) == (0.83, None)
    assert shared_authorities == 1
