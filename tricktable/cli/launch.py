"""The ``tricktable`` command's entry point: one clear line when an extra the command needs is missing, or the disk.

The wheel installs the command with every distribution of the package, but the SDK alone has
none of the command line's libraries; without this wrapper it would end in a traceback about a
module the user never chose. This module
imports only the standard library until it knows the command can run.

A file the command could not write because of the disk (full, over quota, read-only, failing) ends it
the same way: one ``error:`` line naming the file, exit status 2, not a traceback.
"""

from __future__ import annotations

import errno
import sys
from importlib.util import find_spec

#: Third-party module -> the extra that brings it.
EXTRA_OF: dict[str, str] = {
    "typer": "server", "rich": "server", "structlog": "server", "aiohttp": "server", "pydantic": "server",
    "grpc_health": "server", "grpc_reflection": "server", "openskill": "server",
    "ray": "ray",
}
#: What each extra gives, for the message.
EXTRA_GIVES: dict[str, str] = {
    "server": "the game server and the tricktable command",
    "ray": "tournaments on a Ray cluster",
}


#: What an ``OSError`` says of the disk rather than of the command: no room, over quota, a file too large,
#: a read-only file system, a failing device.
DISK_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS, errno.EIO})


def disk_error_message(error: OSError) -> str:
    """The one line for a write the disk refused: the file and why."""
    where = f"{error.filename}: " if error.filename else ""
    return f"error: {where}{error.strerror or error} (the disk refused a write: the command stopped there)"


def missing_extra_message(module: str) -> str:
    """The one line for a command that needs ``module``: which extra brings it and how to install it."""
    extra = EXTRA_OF.get(module.split(".")[0], "server")
    return (f"error: this needs the tricktable[{extra}] extra ({EXTRA_GIVES[extra]}; the module {module!r} is "
            f"not installed): pip install 'tricktable[{extra}]', or from a checkout pip install '.[{extra}]'")


def main() -> None:
    """Run the command line, or say in one line (exit status 2) which extra it needs."""
    if find_spec("typer") is None:
        print(missing_extra_message("typer"), file=sys.stderr)
        raise SystemExit(2)
    try:
        from tricktable.cli.main import main as run

        run()
    except ModuleNotFoundError as error:
        if error.name is None or error.name.split(".")[0] not in EXTRA_OF:
            raise
        print(missing_extra_message(error.name), file=sys.stderr)
        raise SystemExit(2) from None
    except OSError as error:
        if error.errno not in DISK_ERRORS:
            raise
        print(disk_error_message(error), file=sys.stderr)
        raise SystemExit(2) from None
