"""hooks layer: the rules of `.miniroom/hooks.yml` — commands run at a turn's events, and deny rules."""
