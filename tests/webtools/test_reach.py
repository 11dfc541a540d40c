"""What fetch and search may reach: never link-local or cloud-metadata addresses, nor miniroom's own
servers, at any redirect and whatever a name resolves to; loopback and private networks only where a service
allows them; and one deadline for a whole fetch."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from miniroom.config.tls import trusted_tls_context
from miniroom.server.serve import build_server
from miniroom.web.catalogue import check_fetch_file
from miniroom.web.guard import NeverReached, ReachRefused, Resolver, guarded_transport, is_this_machine
from miniroom.web.listeners import own_ports
from miniroom.web.reach import Reach, refusal
from tests.webtools.conftest import write_catalogue
from tests.webtools.servers import Answer, Running, Seen, by_path, serve
from tests.webtools.support import build_tools, call, text

OWN_SECRET = "sk-own-server-secret-4242"
PRIVATE_HINT = "a fetch service allows it with AllowPrivateNetwork: true in .miniroom/fetch.yml"
NEVER = "which fetch and search never reach"


def direct(*, allow: bool, timeout: float = 5, name: str = "D", priority: int = 100) -> str:
    local = "true" if allow else "false"
    return (
        f"  - name: {name}\n    type: Direct\n    priority: {priority}\n"
        f"    settings: {{TimeoutSec: {timeout}, AllowPrivateNetwork: {local}}}\n"
    )


async def fetch(project: Path, services: str, url: str) -> tuple[bool, str]:
    write_catalogue(project, "fetch.yml", "services:\n" + services)
    result = await call(build_tools(project)["fetch"], project, url=url)
    return result.is_error, text(result)


@asynccontextmanager
async def own_server(host: str = "127.0.0.1") -> AsyncIterator[int]:
    """A miniroom server (the HTTP server every miniroom command runs) answering a secret; its port."""

    async def secret(request: Request) -> PlainTextResponse:
        return PlainTextResponse(OWN_SECRET)

    app = Starlette(routes=[Route("/secret", secret)])
    server = build_server(app, host=host, port=0, handle_signals=False)
    task = asyncio.create_task(server.serve())
    while not server.started:
        assert not task.done(), "the server did not start"
        await asyncio.sleep(0.01)
    try:
        yield int(server.servers[0].sockets[0].getsockname()[1])
    finally:
        server.should_exit = True
        await task


@pytest.mark.parametrize(
    ("address", "allowed", "said"),
    [
        ("93.184.216.34", True, None),
        ("2606:2800:220:1:248:1893:25c8:1946", True, None),
        ("127.0.0.1", False, "a loopback address"),
        ("127.8.9.10", False, "a loopback address"),
        ("::1", False, "a loopback address"),
        ("::ffff:127.0.0.1", False, "a loopback address"),
        ("0.0.0.0", False, "an unspecified address, which reaches this machine"),
        ("::", False, "an unspecified address, which reaches this machine"),
        ("10.1.2.3", False, "a private network address"),
        ("172.16.0.1", False, "a private network address"),
        ("192.168.1.1", False, "a private network address"),
        ("100.64.0.1", False, "a private network address"),
        ("fc00::1", False, "a private network address"),
        ("198.18.0.1", False, "a reserved address, not a public one"),
    ],
)
def test_loopback_and_private_addresses_wait_for_the_setting(
    address: str, allowed: bool, said: str | None
) -> None:
    ip = ipaddress.ip_address(address)
    found = refusal(Reach("fetch"), address, ip, 80, frozenset(), local=False)
    assert (found is None) == allowed
    if found is not None:
        assert str(found) == f"fetch refused: {address} is {said}; {PRIVATE_HINT}"
        assert not found.never
    assert refusal(Reach("fetch", private=True), address, ip, 80, frozenset(), local=False) is None


@pytest.mark.parametrize(
    ("address", "said"),
    [
        ("169.254.169.254", "a cloud metadata address"),
        ("fd00:ec2::254", "a cloud metadata address"),
        ("100.100.100.200", "a cloud metadata address"),
        ("::ffff:169.254.169.254", "a cloud metadata address"),
        ("64:ff9b::a9fe:a9fe", "a cloud metadata address"),  # NAT64's spelling of 169.254.169.254
        ("169.254.10.20", "a link-local address"),
        ("fe80::1", "a link-local address"),
    ],
)
def test_link_local_and_metadata_addresses_are_never_reached(address: str, said: str) -> None:
    ip = ipaddress.ip_address(address)
    found = refusal(Reach("fetch", private=True), address, ip, 80, frozenset(), local=False)
    assert found is not None
    assert found.never
    assert str(found) == f"fetch refused: {address} is {said}, {NEVER}"


def test_a_name_is_named_with_the_address_it_resolves_to() -> None:
    found = refusal(Reach("fetch"), "dev.internal", ipaddress.ip_address("10.0.0.7"), 80, (), local=False)
    assert str(found) == "fetch refused: dev.internal resolves to 10.0.0.7, which is a private network " + (
        f"address; {PRIVATE_HINT}"
    )


async def test_a_local_site_is_fetched_only_with_the_services_setting(tmp_path: Path, site: Running) -> None:
    failed, shown = await fetch(tmp_path, direct(allow=False), f"{site.url}/page.html")
    assert failed
    assert shown == (
        f"Could not fetch {site.url}/page.html: every service failed. D: fetch refused: 127.0.0.1 is a "
        f"loopback address; {PRIVATE_HINT}"
    )
    port = urlsplit(site.url).port
    _, by_name = await fetch(tmp_path, direct(allow=False), f"http://localhost:{port}/page.html")
    assert "D: fetch refused: localhost resolves to " in by_name
    assert ", which is a loopback address; " in by_name
    for spelled in ["2130706433", "0x7f000001", "017700000001", "127.1"]:  # what resolvers read as 127.0.0.1
        _, odd = await fetch(tmp_path, direct(allow=False), f"http://{spelled}:{port}/page.html")
        assert f"D: fetch refused: {spelled} resolves to 127.0.0.1, which is a loopback address; " in odd
    assert site.seen == []  # refused before any connection
    # The next service in the chain may allow what the first does not.
    services = direct(allow=False, name="Public", priority=1) + direct(allow=True, name="Local", priority=2)
    failed, shown = await fetch(tmp_path, services, f"{site.url}/page.html")
    assert not failed
    assert shown.startswith(f"Fetched {site.url}/page.html with Local\nFailed first: Public: fetch refused: ")
    assert [seen.path for seen in site.seen] == ["/page.html"]


async def test_metadata_is_never_fetched_directly_or_through_a_redirect(
    tmp_path: Path, site: Running
) -> None:
    metadata = "http://169.254.169.254/latest/meta-data/iam/security-credentials/"
    for url, named in [
        (metadata, "169.254.169.254"),
        ("http://[fd00:ec2::254]/latest/meta-data/", "fd00:ec2::254"),
        ("http://[::ffff:169.254.169.254]/", "::ffff:169.254.169.254"),
        (f"{site.url}/go?to={metadata}", "169.254.169.254"),
    ]:
        services = direct(allow=True, name="A", priority=1) + direct(allow=True, name="B", priority=2)
        failed, shown = await fetch(tmp_path, services, url)
        assert failed
        # No setting allows it, so no other service is tried.
        assert shown == (
            f"Could not fetch {url}: fetch refused: {named} is a cloud metadata address, {NEVER} (service A)"
        )
    assert [seen.path for seen in site.seen] == ["/go"]


async def test_a_redirect_to_a_file_address_is_refused(tmp_path: Path, site: Running) -> None:
    failed, shown = await fetch(tmp_path, direct(allow=True), f"{site.url}/go?to=file:///etc/passwd")
    assert failed
    assert shown.endswith("is not an http:// or https:// address, the only ones fetch reads (service D)")
    assert "root:" not in shown


async def test_a_port_out_of_range_is_named(tmp_path: Path) -> None:
    failed, shown = await fetch(tmp_path, direct(allow=True), "http://example.org:99999/")
    assert failed
    assert shown.endswith("D: 'http://example.org:99999/' has a port that is not a number from 0 to 65535")


async def test_miniroom_own_server_is_never_fetched_by_any_of_its_addresses(
    tmp_path: Path, site: Running
) -> None:
    async with own_server() as port:
        assert port in own_ports()
        for url in [
            f"http://127.0.0.1:{port}/secret",
            f"http://localhost:{port}/secret",
            f"http://0.0.0.0:{port}/secret",
            f"http://[::ffff:127.0.0.1]:{port}/secret",
            f"{site.url}/go?to=http://127.0.0.1:{port}/secret",
        ]:
            failed, shown = await fetch(tmp_path, direct(allow=True), url)
            assert failed, url
            assert f"its port {port} is miniroom's own server (its API and settings), {NEVER}" in shown
            assert OWN_SECRET not in shown
    assert port not in own_ports()  # closed: the port is anyone's again


def network_address() -> str | None:
    """This machine's address on its network (the one it would reach a test network from), if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # a datagram socket sends nothing to connect
        except OSError:
            return None
        address = str(probe.getsockname()[0])
    return None if ipaddress.ip_address(address).is_loopback else address


def test_this_machine_is_told_by_its_addresses() -> None:
    assert is_this_machine(ipaddress.ip_address("127.0.0.1"))
    assert is_this_machine(ipaddress.ip_address("0.0.0.0"))
    assert is_this_machine(ipaddress.ip_address("::ffff:127.0.0.1"))
    assert not is_this_machine(ipaddress.ip_address("203.0.113.7"))


async def test_miniroom_own_server_on_every_address_is_not_fetched_by_the_machines_own(
    tmp_path: Path,
) -> None:
    address = network_address()
    if address is None:
        pytest.skip("this machine has no network address besides loopback")
    async with own_server("0.0.0.0") as port:
        failed, shown = await fetch(tmp_path, direct(allow=True), f"http://{address}:{port}/secret")
    assert failed
    assert f"fetch refused: {address} is this machine, and its port {port} is miniroom's own server" in shown
    assert OWN_SECRET not in shown


@pytest.mark.browser
async def test_a_browser_that_is_redirected_to_miniroom_own_server_shows_nothing(
    tmp_path: Path, site: Running
) -> None:
    services = "  - name: Browser\n    type: BrowserEmulation\n"
    services += "    settings: {WaitMs: 1, AllowPrivateNetwork: true}\n"
    async with own_server() as port:
        failed, shown = await fetch(tmp_path, services, f"{site.url}/go?to=http://127.0.0.1:{port}/secret")
    assert failed
    assert f"its port {port} is miniroom's own server" in shown
    assert OWN_SECRET not in shown


async def test_a_scripts_page_from_the_metadata_address_is_not_shown(tmp_path: Path) -> None:
    envelope = '{"url": "http://169.254.169.254/latest/meta-data/", "body": "meta-secret-77"}'
    (tmp_path / "envelope.json").write_text(envelope, encoding="utf-8")
    services = "  - name: Script\n    type: ScriptFetch\n    settings:\n      Command: cat envelope.json\n"
    failed, shown = await fetch(tmp_path, services, "https://example.org/")
    assert failed
    assert f"fetch refused: 169.254.169.254 is a cloud metadata address, {NEVER}" in shown
    assert "meta-secret-77" not in shown


def resolving(*answers: Sequence[str]) -> tuple[list[str], Resolver]:
    """A resolver giving `answers` in turn, and the names it was asked."""
    asked: list[str] = []
    queue = list(answers)

    async def resolve(host: str, port: int) -> Sequence[str]:
        asked.append(host)
        return queue.pop(0)

    return asked, resolve


async def test_a_name_is_resolved_once_and_the_checked_address_is_the_one_connected(site: Running) -> None:
    # A name that answers a harmless address to the check and the metadata address to the connection
    # (DNS rebinding) gets nowhere: the connection goes to the address that was checked.
    asked, resolver = resolving(["127.0.0.1"], ["169.254.169.254"])
    port = urlsplit(site.url).port
    transport = guarded_transport(Reach("fetch", private=True), trusted_tls_context(), resolver)
    async with httpx.AsyncClient(transport=transport) as http:
        answer = await http.get(f"http://rebind.test:{port}/data.json")
    assert answer.json()["name"] == "miniroom"
    assert asked == ["rebind.test"]
    assert site.seen[-1].headers["host"] == f"rebind.test:{port}"
    transport = guarded_transport(Reach("fetch", private=True), trusted_tls_context(), resolver)
    async with httpx.AsyncClient(transport=transport) as http:
        with pytest.raises(
            NeverReached, match=r"rebind\.test resolves to 169\.254\.169\.254, which is a cloud"
        ):
            await http.get(f"http://rebind.test:{port}/data.json")


async def test_a_name_with_one_forbidden_address_among_others_is_refused() -> None:
    _, resolver = resolving(["93.184.216.34", "127.0.0.1"])
    transport = guarded_transport(Reach("fetch"), trusted_tls_context(), resolver)
    async with httpx.AsyncClient(transport=transport) as http:
        with pytest.raises(ReachRefused, match=r"mixed\.test resolves to 127\.0\.0\.1, which is a loopback"):
            await http.get("http://mixed.test/")


async def test_search_services_never_reach_the_metadata_address(tmp_path: Path) -> None:
    write_catalogue(
        tmp_path,
        "search.yml",
        "services:\n  - name: S\n    type: SearXNG\n"
        "    settings: {BaseUrl: 'http://169.254.169.254', TimeoutSec: 5}\n",
    )
    result = await call(build_tools(tmp_path)["search"], tmp_path, query="credentials")
    assert result.is_error
    assert f"search refused: 169.254.169.254 is a cloud metadata address, {NEVER}" in text(result)


def test_allow_private_network_is_true_or_false(tmp_path: Path) -> None:
    allowed = write_catalogue(tmp_path, "fetch.yml", "services:\n" + direct(allow=True))
    assert check_fetch_file(allowed) == []
    wrong = write_catalogue(
        tmp_path,
        "fetch.yml",
        "services:\n  - name: D\n    type: Direct\n    settings: {AllowPrivateNetwork: sometimes}\n",
    )
    [problem] = check_fetch_file(wrong)
    assert problem.key == "services[0].settings.AllowPrivateNetwork"
    assert problem.message.startswith('must be one of false, true, got "sometimes"')
    text_setting = write_catalogue(
        tmp_path, "fetch.yml", "services:\n  - name: D\n    type: Direct\n    settings: {UserAgent: true}\n"
    )
    [problem] = check_fetch_file(text_setting)
    assert problem.message.startswith("must be text or a number, got true")


@pytest.fixture
def slow_site() -> Iterator[Running]:
    """A page that comes a byte every 0.1 s, and a redirect chain whose every hop takes 0.3 s."""
    done = threading.Event()

    def hop(seen: Seen) -> Answer:
        done.wait(0.3)
        left = int(seen.query["left"])
        return Answer(302, b"", {"Location": f"/hop?left={left - 1}" if left > 1 else "/plain"})

    routes = {
        "/drip": lambda seen: Answer(200, b"x" * 60, {"Content-Type": "text/plain"}, done),
        "/hop": hop,
        "/plain": lambda seen: Answer.of("text/plain", "arrived"),
    }
    with serve(by_path(routes)) as running:
        yield running
        done.set()


async def test_a_dripping_page_or_a_slow_redirect_chain_ends_at_the_deadline(
    tmp_path: Path, slow_site: Running
) -> None:
    deadline = (
        "no complete page within 1 s (TimeoutSec in .miniroom/fetch.yml is the deadline for the whole "
        "fetch, redirects included)"
    )
    for path in ["/drip", "/hop?left=6"]:
        started = time.monotonic()
        failed, shown = await fetch(tmp_path, direct(allow=True, timeout=1), f"{slow_site.url}{path}")
        assert failed
        assert shown.endswith(f"D: {deadline}"), shown
        assert time.monotonic() - started < 5  # the page alone would take 6 s, the chain 1.8 s and more
