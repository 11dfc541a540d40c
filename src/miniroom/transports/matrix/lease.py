"""Which miniroom instance hosts an agent: a lease in the agent account's own account data on the homeserver.

Several instances (each with its own data folder) may share a homeserver, but an agent must be hosted by one
at a time, or every message would be answered twice. The host writes `io.miniroom.host` (who it is, until
when) and renews it while it runs; another instance refuses the agent until the lease has expired, so a
crashed host frees its agents after at most `lease_seconds`. An instance is known by an id kept in its data
folder, so its own restart (after a crash too) takes its agents back at once.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from mautrix.errors import MatrixRequestError, MNotFound

from miniroom.transports.matrix.accounts import Account
from miniroom.transports.matrix.errors import UNREACHABLE, MatrixTransportError, refused

log = logging.getLogger(__name__)
OnLost = Callable[[str], None]
LEASE_TYPE = "io.miniroom.host"
INSTANCE_FILE = "instance-id"
CONFIRM_SECONDS = 1.0  # a lease taken is read again this much later: of two starting at once, one wins


@dataclass(frozen=True)
class Host:
    """One instance's claim on an agent: who holds it (instance id, machine, PID, data folder), until when."""

    instance: str
    machine: str
    pid: int
    data_dir: str
    expires_ms: int

    def describe(self) -> str:
        until = datetime.fromtimestamp(self.expires_ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
        return f"PID {self.pid} on {self.machine}, data folder {self.data_dir}, lease until {until}"


class AgentHostedElsewhere(MatrixTransportError):
    """Another live instance holds an agent's lease."""


def instance_id(data_dir: Path) -> str:
    """This data folder's instance id, made at its first start."""
    path = data_dir / "matrix" / INSTANCE_FILE
    try:
        return path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        made = uuid.uuid4().hex
        path.write_text(made + "\n", encoding="utf-8")
        return made


def parse_host(content: Mapping[str, Any]) -> Host | None:
    """The lease in `content`, or None when there is none (released, or not a lease)."""
    try:
        host = Host(
            str(content["instance"]),
            str(content["machine"]),
            int(content["pid"]),
            str(content["data_dir"]),
            int(content["expires_ms"]),
        )
    except (KeyError, TypeError, ValueError):
        return None
    return host if host.instance else None


def now_ms() -> int:
    return int(time.time() * 1000)


class Leases:
    """The leases of the agents this instance hosts: taken at start, renewed every third of their length."""

    def __init__(self, data_dir: Path, seconds: int) -> None:
        self.data_dir, self.seconds = data_dir, seconds
        self.instance = instance_id(data_dir)
        self._task: asyncio.Task[None] | None = None

    def mine(self) -> Host:
        machine = socket.gethostname()
        expires = now_ms() + self.seconds * 1000
        return Host(self.instance, machine, os.getpid(), str(self.data_dir.resolve()), expires)

    async def take(self, accounts: Sequence[Account]) -> None:
        """Hold every account's lease, or raise naming each agent another live instance hosts."""
        taken = await asyncio.gather(*(self._take(account) for account in accounts), return_exceptions=True)
        problems = [outcome for outcome in taken if isinstance(outcome, BaseException)]
        if problems:
            await self.release(accounts)
            if any(not isinstance(problem, AgentHostedElsewhere) for problem in problems):
                raise next(p for p in problems if not isinstance(p, AgentHostedElsewhere))
            raise AgentHostedElsewhere("\n".join(str(problem) for problem in problems))

    async def _take(self, account: Account) -> None:
        current = await read(account)
        if current is not None and current.instance == self.instance:
            await write(account, self.mine())
            return
        self._refuse_if_held(account, current)
        await write(account, self.mine())
        await asyncio.sleep(CONFIRM_SECONDS)
        self._refuse_if_held(account, await read(account))

    def _refuse_if_held(self, account: Account, current: Host | None) -> None:
        if current is None or current.instance == self.instance or current.expires_ms <= now_ms():
            return
        raise AgentHostedElsewhere(
            f"Agent {account.name} ({account.user_id}) is hosted by another miniroom instance "
            f"({current.describe()}); an agent is hosted by one instance at a time, or every message would "
            f"be answered twice. Stop that instance, leave {account.name} out of this one (serve --agents), "
            "or wait until its lease expires (a crashed instance's lease runs out by itself)."
        )

    def keep(self, accounts: Sequence[Account], on_lost: OnLost) -> None:
        """Renew the leases until `stop`; `on_lost(message)` when another instance took one over."""
        self._task = asyncio.create_task(self._renew(accounts, on_lost), name="agent leases")

    async def _renew(self, accounts: Sequence[Account], on_lost: OnLost) -> None:
        while True:
            await asyncio.sleep(self.seconds / 3)
            for account in accounts:
                try:
                    current = await read(account)
                    if current is not None and current.instance != self.instance:
                        held = current.describe()
                        on_lost(f"agent {account.name} is now hosted by another instance ({held})")
                        return
                    await write(account, self.mine())
                except (MatrixTransportError, *UNREACHABLE) as error:
                    log.warning("Cannot renew the lease of agent %s: %s", account.name, error)

    async def stop(self, accounts: Sequence[Account]) -> None:
        """Stop renewing and give the leases back, so another instance may host the agents at once."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        await self.release(accounts)

    async def release(self, accounts: Sequence[Account]) -> None:
        async def one(account: Account) -> None:
            current = await read(account)
            if current is not None and current.instance == self.instance:
                await account.api.set_account_data(LEASE_TYPE, {})

        outcomes = await asyncio.gather(*(one(account) for account in accounts), return_exceptions=True)
        for account, outcome in zip(accounts, outcomes, strict=True):
            if isinstance(outcome, Exception):
                log.warning("Cannot give back the lease of agent %s: %s", account.name, outcome)


async def read(account: Account) -> Host | None:
    try:
        content = await account.api.get_account_data(LEASE_TYPE)
    except MNotFound:
        return None
    except MatrixRequestError as error:
        raise refused(f"cannot read the host lease of {account.user_id}", error) from None
    return parse_host(content) if isinstance(content, Mapping) else None


async def write(account: Account, host: Host) -> None:
    try:
        await account.api.set_account_data(LEASE_TYPE, asdict(host))
    except MatrixRequestError as error:
        raise refused(f"cannot write the host lease of {account.user_id}", error) from None
