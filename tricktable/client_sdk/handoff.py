"""A seat token handed to a bot process through an inherited file descriptor, never its command line.

Why: ``/proc/PID/cmdline`` is readable by every local user and
``/proc/PID/environ`` by every process of the same user, and a seat token is
the seat's whole credential (``Watch(token)`` shows its hand). A descriptor is
private to the process that inherits it. The parent writes the token into an
anonymous in-memory file (``memfd_create``; a pipe where that is missing),
starts the child with the descriptor in ``pass_fds`` and names it in
:data:`TOKEN_FD_ENV`, then closes its own copy. The child reads it with
:func:`handed_token`; a program in another language reads the descriptor named
by the variable, or the path ``/dev/fd/N`` it is given (``--token-file``).

A long-lived bot process, which plays many seats one after another, gets
its tokens the same private way: one line each on its *control descriptor*
(:func:`control_pair`, named by :data:`CONTROL_FD_ENV`), never a new command
line or environment.
"""

from __future__ import annotations

import contextlib
import os
import socket

#: The environment variable naming the descriptor a seat's token can be read from.
TOKEN_FD_ENV = "TRICKTABLE_TOKEN_FD"
#: A token is a few dozen characters; more than this on the descriptor is not a token.
_MAX_TOKEN_BYTES = 4096


def token_descriptor(token: str) -> int:
    """A readable descriptor holding ``token``, inheritable by a child (``pass_fds``); the caller closes it.

    A memfd is read at offset 0 (``pread``), so a process restarted with a fresh
    descriptor, or one reading it twice, sees the whole token.
    """
    data = token.encode()
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("tricktable-token", os.MFD_CLOEXEC)
        os.write(fd, data)
        return fd
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, data)  # a token fits a pipe's buffer many times over
    finally:
        os.close(write_end)
    return read_end


def read_token_fd(fd: int) -> str:
    """The token on descriptor ``fd`` (a memfd or file from offset 0, or a pipe to its end); closes ``fd``."""
    try:
        try:
            data = os.pread(fd, _MAX_TOKEN_BYTES, 0)
        except OSError:  # a pipe: not seekable
            chunks = []
            while chunk := os.read(fd, _MAX_TOKEN_BYTES):
                chunks.append(chunk)
            data = b"".join(chunks)
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
    return data.decode().strip()


def read_token_file(path: str) -> str:
    """The token in the file ``path`` (``/dev/fd/N`` or a file only this bot can read)."""
    with open(path, "rb") as handle:
        return handle.read(_MAX_TOKEN_BYTES).decode().strip()


def handed_token() -> str | None:
    """The token named by :data:`TOKEN_FD_ENV`, or None when this process was handed none.

    Raises:
        ValueError: the variable is not a descriptor number, or the descriptor holds no token.
    """
    named = os.environ.pop(TOKEN_FD_ENV, None)  # not passed on to this bot's own children
    if named is None:
        return None
    try:
        fd = int(named)
    except ValueError:
        raise ValueError(f"{TOKEN_FD_ENV}={named!r} is not a file descriptor number") from None
    try:
        token = read_token_fd(fd)
    except OSError as exc:
        raise ValueError(f"could not read the seat token from descriptor {fd}: {exc}") from None
    if not token:
        raise ValueError(f"descriptor {fd} ({TOKEN_FD_ENV}) holds no token")
    return token


#: The environment variable naming a long-lived entrant's control descriptor (one end of a Unix socket pair).
CONTROL_FD_ENV = "TRICKTABLE_CONTROL_FD"


def control_pair() -> tuple[socket.socket, int]:
    """A control channel to a long-lived bot process: the tournament's end, and the child's descriptor.

    Why a socket pair and not a pipe per direction: one descriptor carries the seats handed to the
    process (one JSON line each, a token among them) and its answers, and it is private to the process
    that inherits it, as a token descriptor is. The child's descriptor is inheritable through
    ``pass_fds`` only; the caller closes it once the child holds its copy.
    """
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    fd = theirs.detach()
    return ours, fd


def handed_control() -> int | None:
    """The control descriptor named by :data:`CONTROL_FD_ENV` (removed from the environment), or None.

    Raises:
        ValueError: the variable is not a descriptor number, or names no open descriptor.
    """
    named = os.environ.pop(CONTROL_FD_ENV, None)
    if named is None:
        return None
    try:
        fd = int(named)
        os.fstat(fd)
    except ValueError:
        raise ValueError(f"{CONTROL_FD_ENV}={named!r} is not a file descriptor number") from None
    except OSError as exc:
        raise ValueError(f"the control descriptor {named} ({CONTROL_FD_ENV}) is not open: {exc}") from None
    return fd
