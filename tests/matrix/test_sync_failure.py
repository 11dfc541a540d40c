"""A sync that cannot reach the homeserver is told (for `/readyz`) while it retries."""

from __future__ import annotations

import asyncio
import contextlib

from mautrix.api import HTTPAPI
from mautrix.client import ClientAPI
from mautrix.types import UserID

from miniroom.transports.matrix.accounts import Account
from miniroom.transports.matrix.sync import Syncer
from tests.matrix.runtime_support import eventually
from tests.runtime.serve_process import free_port

USER = "@miniroom_probe:example.org"


def account_at(homeserver: str) -> Account:
    api = HTTPAPI(homeserver, "", default_retry_count=0)
    return Account("probe", USER, ClientAPI(UserID(USER), api=api))


async def test_an_unreachable_homeserver_is_told_while_the_sync_retries() -> None:
    homeserver = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    account = account_at(homeserver)
    syncer = Syncer(account, homeserver, "{}", poll_ms=0)
    trying = asyncio.create_task(syncer.sync(None))
    try:

        async def told() -> str | None:
            return syncer.failure

        failure = await eventually(told, "the failed sync to be told")
        assert failure.startswith(f"the sync of {USER} at {homeserver} failed (")
    finally:
        trying.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await trying
        await account.close()
