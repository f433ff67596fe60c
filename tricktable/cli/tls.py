"""``--tls-ca``: the one option by which the client commands connect to a server over TLS.

``bot``, ``match``, ``tournament``, ``conformance``, ``tables``, ``watch`` and ``record`` take it when they talk
to a server of their own choosing (``--server``); the server side is
``serve --tls-cert/--tls-key``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

TlsCa = Annotated[Path | None, typer.Option(
    "--tls-ca", exists=True, dir_okay=False, readable=True,
    help="PEM file of the CA that signed the server's certificate: connect over TLS.")]


def root_certificates(path: Path | None) -> bytes | None:
    """The CA certificates of ``--tls-ca`` (None: plaintext)."""
    return None if path is None else path.read_bytes()
