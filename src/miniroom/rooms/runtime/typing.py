"""An agent shown as typing while its turn has nothing posted yet: people see at once that it answers."""

from __future__ import annotations

import asyncio
import contextlib
import logging

from miniroom.rooms.transport import RoomTransport

log = logging.getLogger(__name__)
TYPING_SECONDS = 30.0  # how long one notice lasts, should it never be withdrawn (a crash)
RENEW_SECONDS = 20.0  # sent again this often, well before it lapses
END_WAIT_SECONDS = 10.0  # the longest a turn's end waits for the notice's withdrawal to be sent


class TypingNotice:
    """`sender` typing in a room (thread) from `start` until `end`; a notice that cannot be sent is logged
    at debug level and never stops anything."""

    def __init__(
        self,
        transport: RoomTransport,
        sender: str,
        room_id: str,
        thread_root: str | None,
        *,
        renew: float = RENEW_SECONDS,
    ) -> None:
        self.transport, self.sender, self.room_id, self.thread_root = transport, sender, room_id, thread_root
        self.renew = renew
        self._ending = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._keep(), name=f"{self.sender} typing in {self.room_id}")

    def end(self) -> None:
        """No longer typing (the reply is posted, or the turn ends); the notice goes in the background."""
        self._ending.set()

    async def ended(self) -> None:
        """`end`, and wait (a while) until the notice is withdrawn."""
        self.end()
        if self._task is None:
            return
        _done, late = await asyncio.wait({self._task}, timeout=END_WAIT_SECONDS)
        for task in late:  # a homeserver that does not answer: the notice lapses by itself
            task.cancel()

    async def _keep(self) -> None:
        if self._ending.is_set():
            return  # posted before the notice went out: nothing to show or withdraw
        while not self._ending.is_set():
            await self._send(True)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._ending.wait(), self.renew)
        await self._send(False)

    async def _send(self, typing: bool) -> None:
        try:
            await self.transport.set_typing(
                self.sender, self.room_id, typing, seconds=TYPING_SECONDS, thread_root=self.thread_root
            )
        except Exception as error:
            log.debug("Could not show %s as typing=%s in %s: %s", self.sender, typing, self.room_id, error)
