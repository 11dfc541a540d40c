"""The TLS context every HTTPS client shares (providers, web services): verifying, and its certificates
loaded only when a TLS connection is made."""

from __future__ import annotations

import ssl

import pytest

from miniroom.config.tls import trusted_tls_context


def test_certificates_load_at_the_first_tls_connection_only() -> None:
    context = trusted_tls_context.__wrapped__()  # a fresh one: the cached one may have been used already
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert context.check_hostname
    assert context.cert_store_stats()["x509_ca"] == 0
    context.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO(), server_hostname="example.com")
    assert context.cert_store_stats()["x509_ca"] > 0


def test_ssl_cert_file_names_the_certificates_to_trust(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SSL_CERT_FILE", "/nonexistent/certificates.pem")
    context = trusted_tls_context.__wrapped__()
    with pytest.raises(FileNotFoundError):
        context.wrap_bio(ssl.MemoryBIO(), ssl.MemoryBIO(), server_hostname="example.com")
