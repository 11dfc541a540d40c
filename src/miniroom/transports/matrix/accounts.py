"""Signing an agent in: a stored token, else registration (`m.login.dummy` flow), else a password login."""

from __future__ import annotations

import logging
import os
import re
import secrets
from dataclasses import dataclass
from typing import Any

import aiohttp
from mautrix.api import HTTPAPI
from mautrix.client import ClientAPI
from mautrix.errors import MatrixRequestError, MUnknownToken
from mautrix.types import UserID

from miniroom.config.config_yaml import MatrixConfig
from miniroom.config.secret_variables import MATRIX_PASSWORD_PREFIX, MATRIX_PASSWORD_VARIABLE
from miniroom.transports.matrix.errors import UNREACHABLE, MatrixTransportError, refused, unreachable
from miniroom.transports.matrix.store import Credentials, MatrixStore

log = logging.getLogger(__name__)

ROUTER = "router"
DEVICE_NAME = "miniroom"
_LOCALPART = re.compile(r"[a-z0-9._=/-]+")


@dataclass
class Account:
    """One signed-in agent (or the router): its name, user id and an API client holding its token."""

    name: str
    user_id: str
    api: ClientAPI

    async def close(self) -> None:
        await self.api.api.session.close()


def localpart(agent: str) -> str:
    """`miniroom_<agent>`, lower-cased; refuses names Matrix does not allow in a user id."""
    name = f"miniroom_{agent.lower()}"
    if _LOCALPART.fullmatch(name) is None:
        raise MatrixTransportError(
            f'agent "{agent}" cannot be a Matrix user name; use only letters, digits and . _ = - / in agents:'
        )
    return name


def password_variable(agent: str) -> str:
    """MINIROOM_MATRIX_PASSWORD_<AGENT>, with characters other than letters and digits as `_`."""
    return f"{MATRIX_PASSWORD_PREFIX}{re.sub(r'[^A-Z0-9]', '_', agent.upper())}"


def _environment_password(agent: str) -> str | None:
    return os.environ.get(password_variable(agent)) or os.environ.get(MATRIX_PASSWORD_VARIABLE) or None


def _client(config: MatrixConfig, user_id: str = "", token: str = "", device_id: str = "") -> ClientAPI:
    api = HTTPAPI(config.homeserver, token, default_retry_count=2)
    return ClientAPI(UserID(user_id), device_id=device_id, api=api)  # type: ignore[arg-type]


async def sign_in(config: MatrixConfig, store: MatrixStore, agent: str, display_name: str) -> Account:
    """The agent's account, signed in; new credentials are saved before this returns."""
    name = localpart(agent)
    user_id = f"@{name}:{config.server_name}"
    stored = store.credentials(name)
    if stored is not None and stored.homeserver == config.homeserver and stored.user_id == user_id:
        api = _client(config, user_id, stored.access_token, stored.device_id)
        if await _token_works(api, config):
            await _set_display_name(api, display_name)
            return Account(agent, user_id, api)
        await api.api.session.close()
    password = stored.password if stored is not None else None
    credentials = await _new_session(config, agent, user_id, password)
    store.save_credentials(name, credentials)
    api = _client(config, user_id, credentials.access_token, credentials.device_id)
    await _set_display_name(api, display_name)
    return Account(agent, user_id, api)


async def _token_works(api: ClientAPI, config: MatrixConfig) -> bool:
    try:
        await api.whoami()
    except MUnknownToken:
        log.info("the stored Matrix token of %s expired; signing in again", api.mxid)
        return False
    except UNREACHABLE as exc:
        await api.api.session.close()
        raise unreachable(config.homeserver, exc) from None
    return True


async def _new_session(config: MatrixConfig, agent: str, user_id: str, stored: str | None) -> Credentials:
    password = _environment_password(agent) or stored
    async with aiohttp.ClientSession() as session:
        if config.registration == "auto":
            chosen = password or secrets.token_urlsafe(24)
            registered = await _register(session, config, localpart(agent), chosen)
            if registered is not None:
                keep = chosen if password is None else None  # never copy a password from the environment
                return Credentials(config.homeserver, user_id, *registered, password=keep)
        if password is None:
            raise MatrixTransportError(
                f"cannot sign in {user_id}: miniroom cannot register it at {config.homeserver} (the name is "
                "taken, or registration is closed or off in matrix.registration) and no password is set; "
                f"set {password_variable(agent)} (or {MATRIX_PASSWORD_VARIABLE} for every agent) in the "
                "environment"
            )
    return await _log_in(config, user_id, password)


async def _register(
    session: aiohttp.ClientSession, config: MatrixConfig, name: str, password: str
) -> tuple[str, str] | None:
    """(device id, token) of a new account, or None when the server refuses or the name is taken."""
    url = f"{config.homeserver}/_matrix/client/v3/register"
    body: dict[str, Any] = {
        "username": name,
        "password": password,
        "initial_device_display_name": DEVICE_NAME,
    }
    try:
        status, reply = await _post(session, url, body)
        if status == 401 and _offers_dummy_flow(reply):
            body["auth"] = {"type": "m.login.dummy", "session": reply.get("session")}
            status, reply = await _post(session, url, body)
    except UNREACHABLE as exc:
        raise unreachable(config.homeserver, exc) from None
    if status == 200:
        return str(reply["device_id"]), str(reply["access_token"])
    log.info("registration of @%s refused (%s); logging in instead", name, reply.get("errcode", status))
    return None


async def _post(session: aiohttp.ClientSession, url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    async with session.post(url, json=body) as response:
        try:
            reply = await response.json(content_type=None)
        except ValueError:
            reply = {}
        return response.status, reply if isinstance(reply, dict) else {}


def _offers_dummy_flow(reply: dict[str, Any]) -> bool:
    return any(flow.get("stages") == ["m.login.dummy"] for flow in reply.get("flows", []))


async def _log_in(config: MatrixConfig, user_id: str, password: str) -> Credentials:
    api = _client(config)
    try:
        reply = await api.login(UserID(user_id), password=password, device_name=DEVICE_NAME)
    except MatrixRequestError as exc:
        raise refused(f"cannot log in {user_id} with the password from the environment", exc) from None
    except UNREACHABLE as exc:
        raise unreachable(config.homeserver, exc) from None
    finally:
        await api.api.session.close()
    return Credentials(config.homeserver, user_id, str(reply.device_id), str(reply.access_token))


async def _set_display_name(api: ClientAPI, display_name: str) -> None:
    try:
        await api.set_displayname(display_name, check_current=True)
    except MatrixRequestError as exc:
        log.warning("cannot set the display name of %s: %s", api.mxid, exc.message)
