"""I/O adapters that carry Matrix-shaped events between the room runtime and a chat backend."""
