"""miniroom: a self-hosted home for AI agents."""

import sys

__version__ = "0.1.0"

# httpx imports its command-line client (click, pygments) whenever click is installed, and uvicorn brings
# click: a tenth of a one-shot turn's CPU for code miniroom never runs. A None entry fails that optional
# import as a missing click would (httpx then defines a stub `main`).
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
