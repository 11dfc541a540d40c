"""Files on a Matrix homeserver: downloads through the authenticated media API (client v1, Matrix 1.11:
`GET /_matrix/client/v1/media/download/{serverName}/{mediaId}` with the account's token), read only up to a
limit; uploads through `POST /_matrix/media/v3/upload`."""

from __future__ import annotations

import re
from urllib.parse import quote

import aiohttp
from mautrix.errors import MatrixRequestError
from mautrix.types import ContentURI

from miniroom.rooms.transport import MediaError, MediaTooLarge
from miniroom.transports.matrix.accounts import Account
from miniroom.transports.matrix.errors import UNREACHABLE

_MXC = re.compile(r"mxc://([A-Za-z0-9.:\[\]-]+)/([A-Za-z0-9_-]+)")
_CHUNK = 64 * 1024


def download_url(homeserver: str, url: str) -> str:
    """The authenticated download address of an `mxc://server/id` URI; MediaError for anything else."""
    match = _MXC.fullmatch(url)
    if match is None:
        raise MediaError(f"{url!r} is not an mxc://server/media-id URI")
    server, media_id = match.groups()
    return f"{homeserver.rstrip('/')}/_matrix/client/v1/media/download/{quote(server)}/{quote(media_id)}"


async def download(account: Account, homeserver: str, url: str, limit: int) -> bytes:
    """The content of `url`, fetched as `account`; MediaTooLarge as soon as it passes `limit` bytes."""
    address = download_url(homeserver, url)
    headers = {"Authorization": f"Bearer {account.api.api.token}"}
    try:
        async with account.api.api.session.get(address, headers=headers, allow_redirects=True) as response:
            if response.status != 200:
                text = (await response.content.read(2048)).decode("utf-8", "replace")
                raise MediaError(f"the homeserver answered HTTP {response.status} for {url}: {text}")
            declared = response.content_length
            if declared is not None and declared > limit:
                raise MediaTooLarge(f"{url} is {declared:,} bytes, over the limit of {limit:,}")
            chunks: list[bytes] = []
            size = 0
            async for chunk in response.content.iter_chunked(_CHUNK):
                size += len(chunk)
                if size > limit:
                    raise MediaTooLarge(f"{url} is over the limit of {limit:,} bytes")
                chunks.append(chunk)
    except (*UNREACHABLE, aiohttp.ClientPayloadError) as error:
        raise MediaError(f"cannot download {url} from {homeserver}: {error}") from None
    return b"".join(chunks)


async def upload(account: Account, data: bytes, filename: str, mimetype: str) -> str:
    """Upload `data` as `account`; its mxc:// URI."""
    try:
        uri: ContentURI = await account.api.upload_media(data, mime_type=mimetype, filename=filename)
    except MatrixRequestError as error:
        code = error.errcode or f"HTTP {error.http_status}"
        if error.http_status == 413:
            raise MediaTooLarge(f"the homeserver refused {filename} as too large ({code})") from None
        raise MediaError(f"the homeserver refused {filename} ({code}: {error.message})") from None
    except UNREACHABLE as error:
        raise MediaError(f"cannot upload {filename}: {error}") from None
    return str(uri)
