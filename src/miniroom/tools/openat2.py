"""openat2 with RESOLVE_BENEATH, reached through ctypes: a path opened beneath a folder's descriptor in one
call, any symlink on the way an error (ELOOP). Linux 5.6+; `tools.beneath` asks whether it works here."""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import platform

RESOLVE_NO_MAGICLINKS = 0x02
RESOLVE_NO_SYMLINKS = 0x04
RESOLVE_BENEATH = 0x08
SYSCALL_OPENAT2 = {"x86_64": 437, "aarch64": 437, "arm64": 437}.get(platform.machine())
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


def openat2_beneath(dir_fd: int, relative: str, flags: int, mode: int = 0o666) -> int:
    if SYSCALL_OPENAT2 is None:
        raise OSError(errno.ENOSYS, "openat2 is not available on this machine")
    tmpfile = getattr(os, "O_TMPFILE", 0)  # holds O_DIRECTORY's bit too, so compare it whole
    creates = flags & os.O_CREAT or (tmpfile and flags & tmpfile == tmpfile)
    resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
    how = _OpenHow(flags | _CLOEXEC, mode if creates else 0, resolve)
    path = os.fsencode(relative)
    fd = int(_libc().syscall(SYSCALL_OPENAT2, dir_fd, path, ctypes.byref(how), ctypes.sizeof(how)))
    if fd < 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), relative)
    return fd


@functools.cache
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)
