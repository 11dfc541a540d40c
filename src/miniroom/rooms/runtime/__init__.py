"""The room runtime: configured agents answering in chat rooms by the `rooms` policy, over any transport."""

from miniroom.rooms.runtime.dispatcher import RoomRuntime
from miniroom.rooms.runtime.setup import DATA_DIR_NAME, config_path, data_dir_for

__all__ = ["DATA_DIR_NAME", "RoomRuntime", "config_path", "data_dir_for"]
