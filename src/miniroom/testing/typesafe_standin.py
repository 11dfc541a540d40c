"""A local stand-in for TypeSafe's System One API (`POST /v1/systemone`), for tests and benchmarks.

    with TypesafeStandIn() as standin:
        standin.script(0.93, Verdict(status=401), Verdict(hang=True))
        env = {"TYPESAFE_BASE_URL": standin.url, "TYPESAFE_API_KEY": "ts-test"}
        ...
        assert standin.requests[0].headers["authorization"] == "Bearer ts-test"

Each request takes the next scripted answer: a probability (a `noul` answer), an error status, a body that is
not System One's shape, or no answer at all until the stand-in stops (`hang`). Unscripted requests get 500.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

PATH = "/v1/systemone"


@dataclass(frozen=True)
class Verdict:
    """One scripted answer; `probability` alone is a normal one."""

    probability: float | None = None
    status: int = 200
    body: Any = None  # sent as JSON instead of the normal answer (a malformed reply)
    hang: bool = False  # never answer; the connection closes when the stand-in stops


@dataclass(frozen=True)
class SeenRequest:
    path: str
    headers: dict[str, str]  # lower-cased names
    body: Any


class TypesafeStandIn:
    """System One on 127.0.0.1, answering scripted probabilities; `requests` records what it received."""

    def __init__(self) -> None:
        self._answers: deque[Verdict] = deque()
        self._seen: list[SeenRequest] = []
        self._lock = threading.Condition()
        self._released = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.01,), name="typesafe-standin", daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def script(self, *answers: float | Verdict) -> None:
        with self._lock:
            self._answers.extend(a if isinstance(a, Verdict) else Verdict(probability=a) for a in answers)

    @property
    def requests(self) -> list[SeenRequest]:
        with self._lock:
            return list(self._seen)

    def wait_for_requests(self, count: int, timeout: float = 10.0) -> list[SeenRequest]:
        with self._lock:
            if not self._lock.wait_for(lambda: len(self._seen) >= count, timeout):
                raise TimeoutError(f"typesafe stand-in: {len(self._seen)} of {count} requests in {timeout} s")
            return list(self._seen)

    def __enter__(self) -> TypesafeStandIn:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._released.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def _take(self, seen: SeenRequest) -> Verdict | None:
        with self._lock:
            self._seen.append(seen)
            self._lock.notify_all()
            return self._answers.popleft() if self._answers else None

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # the method name http.server calls
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length)
                try:
                    body = json.loads(raw)
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                headers = {name.lower(): value for name, value in self.headers.items()}
                answer = standin._take(SeenRequest(self.path, headers, body))
                if answer is not None and answer.hang:
                    standin._released.wait()
                    return
                status, reply = _reply(self.path, body, answer)
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # quiet: tests read `requests` instead

        return Handler


def _reply(path: str, body: Any, answer: Verdict | None) -> tuple[int, Any]:
    if path != PATH:
        return 404, {"detail": f"no such endpoint {path}; System One answers POST {PATH}"}
    if answer is None:
        return 500, {"detail": "typesafe stand-in: no answer scripted for this request"}
    if answer.status != 200:
        return answer.status, {"detail": f"scripted status {answer.status}"}
    if answer.body is not None:
        return 200, answer.body
    questions = body.get("questions", {}) if isinstance(body, dict) else {}
    answers = {name: {"type": "noul", "noul": answer.probability} for name in questions}
    return 200, {
        "model": "jev-standin",
        "answers": answers,
        "usage": {"input_tokens": 40, "output_tokens": 1},
    }
