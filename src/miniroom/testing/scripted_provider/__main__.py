"""`python -m miniroom.testing.scripted_provider --port N --script FILE.json`: serve until killed.

The script is a JSON list of Reply fields, e.g. [{"text": "hi"}, {"tool_calls": [["read", {"path": "a"}]]}].
The server prints its URL (the Anthropic base URL; OpenAI clients add /v1) on stdout once it listens.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path

from miniroom.testing.scripted_provider._model import Reply
from miniroom.testing.scripted_provider._server import DEFAULT_CONTEXT_WINDOW, ScriptedProvider


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m miniroom.testing.scripted_provider", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 (default): a free port")
    parser.add_argument("--script", type=Path, help="a JSON list of replies (Reply fields)")
    parser.add_argument("--repeat", action="store_true", help="serve the script in a cycle, forever")
    parser.add_argument(
        "--context-window", type=int, default=DEFAULT_CONTEXT_WINDOW, help="refuse longer requests (tokens)"
    )
    args = parser.parse_args(argv)
    replies: list[Reply] = []
    if args.script is not None:
        try:
            data = json.loads(args.script.read_text(encoding="utf-8"))
            if not isinstance(data, list):
                raise ValueError("the script must be a JSON list of replies")
            replies = [Reply.from_dict(item) for item in data]
        except (OSError, ValueError, TypeError) as exc:
            print(f"scripted provider: cannot load {args.script}: {exc}", file=sys.stderr)
            return 2
    provider = ScriptedProvider(args.host, args.port, context_window=args.context_window)
    if args.repeat:
        provider.repeat(*replies)
    else:
        provider.script(*replies)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with provider:
        print(provider.url, flush=True)
        try:
            while True:
                signal.pause()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
