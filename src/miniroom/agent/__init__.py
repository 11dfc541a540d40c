"""agent layer: building one agent from settings, prompt and tools."""
