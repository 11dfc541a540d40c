"""The reach rules at the wire: a name resolved once, every address it gives checked, and the connection made
to a checked address, so a name that answers differently a moment later (DNS rebinding) cannot slip past;
every redirect is a new connection, checked the same way. A fetch service is wrapped to check the address
it is given and the one its page came from."""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpcore
import httpx

from miniroom.web.catalogue import ServiceEntry
from miniroom.web.listeners import own_ports
from miniroom.web.reach import (
    ALLOW_PRIVATE,
    IPAddress,
    Reach,
    Refusal,
    as_address,
    refusal,
    scheme_refusal,
    unwrapped,
)
from miniroom.web.services import (
    FetchedPage,
    FetchService,
    FinalFailure,
    ServiceEnvironment,
    ServiceFailure,
    create_fetcher,
)
from miniroom.web.settings import ServiceSettings

Resolver = Callable[[str, int], Awaitable[Sequence[str]]]


class ReachRefused(ServiceFailure):
    """An address this service may not reach; the next service may (its own AllowPrivateNetwork)."""


class NeverReached(FinalFailure):
    """An address no service reaches: the chain stops."""


def raised(problem: Refusal) -> ServiceFailure | FinalFailure:
    return NeverReached(str(problem)) if problem.never else ReachRefused(str(problem))


def fetch_reach(settings: ServiceSettings) -> Reach:
    """The reach of a fetch service: private networks only with AllowPrivateNetwork: true."""
    return Reach("fetch", private=(settings.text(ALLOW_PRIVATE) or "").strip().lower() == "true")


def configured_reach(tool: str) -> Reach:
    """The reach of a connection to an address the configuration names, which the model does not choose (a
    search vendor, a self-hosted SearXNG, a remote browser service): private networks, but never the rest."""
    return Reach(tool, private=True)


async def resolve(host: str, port: int) -> list[str]:
    """The addresses `host` resolves to, in the resolver's order, each once."""
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def is_this_machine(address: IPAddress) -> bool:
    """Whether a connection to `address` stays on this machine: loopback, 0.0.0.0, or an address one of its
    interfaces holds (which a socket can bind to)."""
    address = unwrapped(address)
    if address.is_loopback or address.is_unspecified:
        return True
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.bind((str(address), 0))
    except OSError:
        return False
    return True


def check_addresses(reach: Reach, host: str, port: int, addresses: Iterable[IPAddress]) -> None:
    """Raise the refusal of the first address of `host` that `reach` may not connect to."""
    own = own_ports()
    for address in addresses:
        local = port in own and is_this_machine(address)
        problem = refusal(reach, host, address, port, own, local)
        if problem is not None:
            raise raised(problem)


async def checked_addresses(reach: Reach, host: str, port: int, resolver: Resolver = resolve) -> list[str]:
    """The addresses to connect to for `host`: resolved once, every one of them allowed, else a refusal."""
    literal = as_address(host)
    found = [str(literal)] if literal is not None else list(await resolver(host, port))
    addresses = []
    for text in found:
        address = as_address(text)
        if address is None:
            raise ServiceFailure(f"resolving {host} gave {text!r}, which is not an IP address")
        addresses.append(address)
    check_addresses(reach, host, port, addresses)
    return found


async def check_url(reach: Reach, url: str, resolver: Resolver = resolve) -> None:
    """Refuse `url` when its scheme is not http(s), or its host is or resolves to an address `reach` may not
    connect to. A name that does not resolve here passes: a proxy or a browser may still know it, and what
    it then reaches is checked by the connection (Direct) or not at all (see the README)."""
    parts = urlsplit(url)
    if (problem := scheme_refusal(reach, url, parts.scheme)) is not None:
        raise raised(problem)
    host = parts.hostname or ""
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    except ValueError:
        raise ServiceFailure(f"{url!r} has a port that is not a number from 0 to 65535") from None
    try:
        await checked_addresses(reach, host, port, resolver)
    except OSError:
        return


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's connections, each to an address the reach rules allow, resolved once."""

    def __init__(self, reach: Reach, resolver: Resolver = resolve) -> None:
        self.reach, self.resolver = reach, resolver
        self.inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface names it so)
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        try:
            addresses = await checked_addresses(self.reach, host, port, self.resolver)
        except OSError as error:
            raise httpcore.ConnectError(f"cannot resolve {host} ({error})") from None
        failure: Exception = httpcore.ConnectError(f"{host} has no address")
        for address in addresses:
            try:
                return await self.inner.connect_tcp(address, port, timeout, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as error:
                failure = error
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface names it so)
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError(f"{self.reach.tool} does not connect to local sockets ({path})")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def guarded_transport(
    reach: Reach, tls: ssl.SSLContext, resolver: Resolver = resolve
) -> httpx.AsyncHTTPTransport:
    """httpx's transport, its connections made by GuardedBackend (httpx takes no backend of its own: the
    pool it would make is replaced by the same pool with ours)."""
    transport = httpx.AsyncHTTPTransport(verify=tls)
    transport._pool = httpcore.AsyncConnectionPool(
        ssl_context=tls, network_backend=GuardedBackend(reach, resolver)
    )
    return transport


def request_hook(reach: Reach) -> Callable[[httpx.Request], Awaitable[None]]:
    """httpx calls it before every request, redirects included: through a proxy, what the proxy is asked for
    is checked here (the proxy resolves names itself, so a name is checked as it resolves here)."""

    async def check(request: httpx.Request) -> None:
        await check_url(reach, str(request.url))

    return check


class GuardedFetcher:
    """A fetch service that reads only addresses its reach allows."""

    def __init__(self, inner: FetchService, reach: Reach) -> None:
        self.inner, self.reach = inner, reach

    async def fetch(self, url: str) -> FetchedPage:
        await check_url(self.reach, url)
        page = await self.inner.fetch(url)
        if page.url != url:  # where a browser or a script ended up
            await check_url(self.reach, page.url)
        return page


def open_fetcher(entry: ServiceEntry, settings: ServiceSettings, where: ServiceEnvironment) -> GuardedFetcher:
    """The fetch service `entry` describes, within its reach."""
    return GuardedFetcher(create_fetcher(entry, settings, where), fetch_reach(settings))
