"""``--token-file``: an organiser's owner token for ``watch`` and ``record``, and where a tournament keeps its own.

An owner token reads what the server withholds from everyone else (a
tournament's sealed tables), so it never goes on a command line, where
``/proc/PID/cmdline`` shows it to every local user: it is read from a file
(``-``: standard input), and ``tricktable tournament`` writes its own to a
file only its user can read (:func:`write_owner_token`).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

TokenFile = Annotated[Path | None, typer.Option(
    "--token-file", dir_okay=False,
    help="File holding an owner token (a tournament's: <data-dir>/organiser/<name>.token), '-' for standard "
         "input: follows and fetches tables withheld from others.")]


def read_owner_token(path: Path | None) -> str:
    """The owner token in ``path`` (its first line, stripped; ``-``: standard input); '' without a path.

    Raises:
        OSError: the file can not be read.
        ValueError: it holds no token.
    """
    if path is None:
        return ""
    text = sys.stdin.readline() if str(path) == "-" else path.read_text(encoding="utf-8")
    token = text.strip().splitlines()[0].strip() if text.strip() else ""
    if not token:
        raise ValueError(f"{path}: no owner token in it")
    return token


def owner_token_path(data_dir: Path, tournament: str) -> Path:
    """Where ``tricktable tournament`` writes a tournament's organiser token (beside its database, not its exports)."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in tournament)
    return data_dir / "organiser" / f"{safe}.token"


def write_owner_token(path: Path, token: str) -> None:
    """Write ``token`` to ``path``, readable by this user only (the folder too), replacing what was there."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        os.fchmod(out.fileno(), 0o600)  # a file made earlier with wider permissions is narrowed
        out.write(token + "\n")
