"""miniroom: a self-hosted home for AI agents."""

__version__ = "0.1.0"
