"""The certificates miniroom trusts for HTTPS (model providers, web services): SSL_CERT_FILE or SSL_CERT_DIR
when set, as curl and OpenSSL read them (a company's own CA, a proxy that inspects TLS), else certifi's."""

from __future__ import annotations

import functools
import os
import ssl
import sys
from typing import Any

import certifi

from miniroom.config.errors import cause_of


class _TrustLoadedOnUse(ssl.SSLContext):
    """A verifying client context whose trusted certificates are loaded at its first TLS connection: loading
    them takes tens of milliseconds, which a run against a plain-HTTP provider (a local model) never needs."""

    _cafile: str | None = None
    _capath: str | None = None
    _loaded = False

    def _load_trust(self) -> None:
        if not self._loaded:
            self.load_verify_locations(self._cafile, self._capath)
            self._loaded = True

    def wrap_socket(self, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
        self._load_trust()
        return super().wrap_socket(*args, **kwargs)

    def wrap_bio(self, *args: Any, **kwargs: Any) -> ssl.SSLObject:
        self._load_trust()
        return super().wrap_bio(*args, **kwargs)


@functools.cache
def trusted_tls_context() -> ssl.SSLContext:
    """One client context a process, so every client (a turn, a subagent, a fetch) shares the loaded
    certificates; it verifies certificates and host names, as `ssl.create_default_context` does."""
    context = _TrustLoadedOnUse(ssl.PROTOCOL_TLS_CLIENT)
    if os.environ.get("SSL_CERT_FILE"):
        context._cafile = os.environ["SSL_CERT_FILE"]
    elif os.environ.get("SSL_CERT_DIR"):
        context._capath = os.environ["SSL_CERT_DIR"]
    else:
        context._cafile = certifi.where()
    keylog = os.environ.get("SSLKEYLOGFILE")
    if keylog and not sys.flags.ignore_environment:  # as ssl.create_default_context
        context.keylog_filename = keylog
    return context


TRUST_HINT = (
    "if this network has its own certificate authority (a company's, a proxy that inspects TLS), set "
    "SSL_CERT_FILE to its certificate (a PEM file) in miniroom's environment"
)


def untrusted_certificate(error: BaseException) -> bool:
    """Whether `error` comes of a certificate no trusted authority signed (or one for another host)."""
    return cause_of(error, _unverified) is not None


def _unverified(error: BaseException) -> bool:
    return isinstance(error, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY_FAILED" in str(error)
