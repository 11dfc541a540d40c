"""The room runtime: configured agents answering in chat rooms by the `rooms` policy, over any transport."""

from miniroom.rooms.runtime.dispatcher import RoomRuntime

__all__ = ["RoomRuntime"]
