"""The TypeSafe judge reaches System One over HTTPS with the certificates every miniroom client trusts: a
company's authority named by SSL_CERT_FILE, in the one TLS context the process shares."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import trustme

from miniroom.config.tls import trusted_tls_context
from miniroom.rooms.judge_context import JudgeRequest
from miniroom.rooms.judgment import Failure
from miniroom.rooms.runtime.typesafe import TypesafeClient
from tests.webtools.servers import Answer, Running, company_tls, serve

REQUEST = JudgeRequest(question="Should the agent answer?", guidance="", sections=())
ANSWER = {"model": "jev-1.14.0", "answers": {"decision": {"type": "noul", "noul": 0.83}}}


@pytest.fixture
def company_ca_system_one() -> Iterator[tuple[Running, trustme.CA]]:
    """System One over HTTPS, its certificate signed by an authority no default store knows."""
    served, authority = company_tls()
    with serve(lambda seen: Answer.json(ANSWER), served) as site:
        yield site, authority
    trusted_tls_context.cache_clear()


async def test_the_judge_trusts_the_authority_ssl_cert_file_names(
    company_ca_system_one: tuple[Running, trustme.CA], monkeypatch: pytest.MonkeyPatch
) -> None:
    site, authority = company_ca_system_one
    client = TypesafeClient({"TYPESAFE_API_KEY": "ts-test", "TYPESAFE_BASE_URL": site.url})
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    trusted_tls_context.cache_clear()
    untrusted = await client.ask(REQUEST, 30)
    assert (untrusted.failure, untrusted.detail) == (
        Failure.PROVIDER_ERROR,
        f"ConnectError from {client.url}",
    )
    assert site.seen == []

    with authority.cert_pem.tempfile() as trusted:
        monkeypatch.setenv("SSL_CERT_FILE", trusted)
        trusted_tls_context.cache_clear()
        answer = await client.ask(REQUEST, 30)
    assert (answer.probability, answer.failure) == (0.83, None)
    # the connection was made with the process's shared context, which loaded the authority for it
    assert trusted_tls_context().cert_store_stats()["x509_ca"] == 1
