"""Which addresses fetch and search may connect to (pure): never link-local or cloud-metadata addresses, nor
miniroom's own listeners; loopback and private networks only where the service allows them.

The model chooses what fetch reads, and a page it reads may ask for anything: without these rules a
stranger's page could have an agent read miniroom's own settings API or a cloud's credentials endpoint.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Collection
from dataclasses import dataclass

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
ALLOW_PRIVATE = "AllowPrivateNetwork"
SCHEMES = ("http", "https")
# Cloud metadata endpoints: AWS, GCP, Azure, OpenStack at 169.254.169.254 (link-local anyway), AWS over IPv6,
# Alibaba Cloud at 100.100.100.200 (inside the carrier-grade NAT range, which a setting may allow).
METADATA = frozenset(
    ipaddress.ip_address(text) for text in ("169.254.169.254", "fd00:ec2::254", "100.100.100.200")
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")  # a NAT64 gateway maps these to the IPv4 address they end in
_LINK_LOCAL = (ipaddress.ip_network("169.254.0.0/16"), ipaddress.ip_network("fe80::/10"))
_PRIVATE = tuple(
    ipaddress.ip_network(text)
    for text in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fc00::/7")
)


@dataclass(frozen=True)
class Reach:
    """What one service may connect to: `private` lets loopback and private networks in."""

    tool: str  # fetch or search: the word the refusal starts with
    private: bool = False


class Refusal(Exception):
    """An address a service may not reach; `never` when no setting would allow it."""

    def __init__(self, message: str, *, never: bool) -> None:
        super().__init__(message)
        self.never = never


def as_address(host: str) -> IPAddress | None:
    """The IP address `host` spells (brackets allowed), or None for a name."""
    try:
        return ipaddress.ip_address(host.strip("[]").split("%")[0])
    except ValueError:
        return None


def unwrapped(address: IPAddress) -> IPAddress:
    """The IPv4 address an IPv6 one carries (::ffff:a.b.c.d, 64:ff9b::a.b.c.d), which is where it goes."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return address.ipv4_mapped
        if address in _NAT64:
            return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address


def forbidden_kind(address: IPAddress) -> str | None:
    """What no setting lets a service reach at `address`, or None."""
    address = unwrapped(address)
    if address in METADATA:
        return "a cloud metadata address"
    if any(address in network for network in _LINK_LOCAL):
        return "a link-local address"
    return None


def private_kind(address: IPAddress) -> str | None:
    """What only AllowPrivateNetwork lets a service reach at `address`, or None for a public address."""
    address = unwrapped(address)
    if address.is_loopback:
        return "a loopback address"
    if address.is_unspecified or address in ipaddress.ip_network("0.0.0.0/8"):
        return "an unspecified address, which reaches this machine"
    if any(address in network for network in _PRIVATE):
        return "a private network address"
    if not address.is_global:
        return "a reserved address, not a public one"
    return None


def refusal(
    reach: Reach, host: str, address: IPAddress, port: int, own_ports: Collection[int], local: bool
) -> Refusal | None:
    """Why `reach` may not connect to `address`:`port` (which `host` named), or None when it may. `local`:
    the address is this machine's; with a port in `own_ports` it is one of miniroom's own listeners."""
    written = host.strip("[]")  # an address as the URL spells it
    subject = f"{written} is" if as_address(host) is not None else f"{host} resolves to {address}, which is"
    refused = f"{reach.tool} refused: {subject}"
    if (kind := forbidden_kind(address)) is not None:
        return Refusal(f"{refused} {kind}, which fetch and search never reach", never=True)
    if local and port in own_ports:
        return Refusal(
            f"{refused} this machine, and its port {port} is miniroom's own server (its API and settings), "
            "which fetch and search never reach",
            never=True,
        )
    kind = private_kind(address)
    if kind is None or reach.private:
        return None
    return Refusal(
        f"{refused} {kind}; a {reach.tool} service allows it with {ALLOW_PRIVATE}: true in "
        f".miniroom/{reach.tool}.yml",
        never=False,
    )


def scheme_refusal(reach: Reach, url: str, scheme: str) -> Refusal | None:
    """A refusal for any address but http:// and https:// ones (file://, ftp://, data:...)."""
    if scheme.lower() in SCHEMES:
        return None
    return Refusal(
        f"{reach.tool} refused: {url!r} is not an http:// or https:// address, the only ones "
        f"{reach.tool} reads",
        never=True,
    )
