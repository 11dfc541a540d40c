"""A loopback stand-in at the network boundary: it forwards one request to miniroom, takes miniroom's whole
answer, and then, when the test says, closes the client's connection without passing the answer on, as a
connection does when miniroom dies between taking a call and answering it."""

from __future__ import annotations

import socket
import threading

WAIT = 60.0


class CuttingProxy:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listening = socket.create_server(("127.0.0.1", 0))
        self.answered = threading.Event()  # miniroom took the request and answered it
        self.cut = threading.Event()
        threading.Thread(target=self._serve, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.listening.getsockname()[1]}"

    def _serve(self) -> None:
        with self.listening:  # one connection only
            client, _ = self.listening.accept()
        with client, socket.create_connection(("127.0.0.1", self.target_port), timeout=WAIT) as upstream:
            upstream.sendall(_whole_request(client))
            while upstream.recv(65536):  # the answer ends when miniroom closes (the client asked for it)
                pass
            self.answered.set()
            self.cut.wait(WAIT)


def _whole_request(client: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        data += client.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(
        (
            int(line.split(b":")[1])
            for line in head.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        ),
        0,
    )
    while len(body) < length:
        body += client.recv(65536)
    return head + b"\r\n\r\n" + body
