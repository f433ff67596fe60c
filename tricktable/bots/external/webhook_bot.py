"""A bot that is an HTTP service: every message POSTed to its URL as JSON, a decision's answer in the reply.

Battlesnake's model: the bot is a small web server in any language. Each
``decision`` carries ``time_ms``, the budget of its answer; the request is
given up when it runs out (and the server's default action played, as a
``late`` fault). ``hello``, ``error`` and ``end`` are posted the same way; their
replies are ignored. Every request of one game carries the header
``X-Tricktable-Session`` (random, new each game), so that one service can
serve many seats. One keep-alive connection per bot, opened again after a
timeout or an error. Standard library only (:mod:`http.client`), like the SDK.

:meth:`WebhookBot.through` sends the requests through a Unix socket instead
of dialling the URL's host: how a sandboxed tournament seat, which has no
network, reaches its entrant's URL (a relay outside the sandbox forwards the
socket to that host and port only). The requests are the URL's all the same
(its ``Host`` header; TLS with its host name for ``https``).
"""

from __future__ import annotations

import contextlib
import http.client
import secrets
import socket
import ssl
from typing import Any
from urllib.parse import urlsplit

from tricktable.bots.external import messages
from tricktable.bots.external.adapter import DEFAULT_ANSWER_SECONDS, ExternalBot

#: Seconds a ``hello``, ``error`` or ``end`` post may take (their replies carry nothing).
TELL_SECONDS = 2.0


def check_url(url: str) -> tuple[str, str, int | None, str]:
    """``url`` as (scheme, host, port, path).

    Raises:
        ValueError: not an ``http://`` or ``https://`` URL with a host.
    """
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"a webhook bot's URL is http://HOST[:PORT]/PATH, not {url!r}")
    try:
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"bad port in {url!r}: {exc}") from None
    path = parts.path or "/"
    return parts.scheme, parts.hostname, port, path + (f"?{parts.query}" if parts.query else "")


class _SocketConnection(http.client.HTTPConnection):
    """An HTTP connection to the URL's host made over the Unix socket at ``path`` (TLS on top for ``https``)."""

    def __init__(self, path: str, host: str, port: int | None, *, tls: bool, timeout: float) -> None:
        super().__init__(host, port or (443 if tls else 80), timeout=timeout)
        self.path_ = path
        self.tls = tls

    def connect(self) -> None:
        """Open the socket (and TLS over it), in place of a TCP connection to the host."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self.path_)
            self.sock = (ssl.create_default_context().wrap_socket(sock, server_hostname=self.host) if self.tls
                         else sock)
        except BaseException:
            sock.close()
            raise


class WebhookBot(ExternalBot):
    """The HTTP service at ``url`` playing a seat.

    Raises:
        ValueError: ``url`` is not an http(s) URL with a host.
    """

    #: A post after a late reply would make the seat late at the server too.
    tells_after_late = False

    def __init__(self, url: str, *, label: str | None = None,
                 answer_seconds: float = DEFAULT_ANSWER_SECONDS) -> None:
        self.url = url
        self._scheme, self._host, self._port, self._path = check_url(url)
        super().__init__(label or f"webhook:{self._host}:{self._port or ''}", answer_seconds=answer_seconds)
        self._connection: http.client.HTTPConnection | None = None
        self._socket: str | None = None
        #: Sent with every request: one service can tell the seats and games it serves apart.
        self.session = secrets.token_hex(8)

    def through(self, socket_path: str) -> None:
        """Reach the URL through the Unix socket at ``socket_path`` (a relay to the URL's host and port)."""
        self._drop()
        self._socket = socket_path

    def _connect(self, seconds: float) -> http.client.HTTPConnection:
        if self._connection is None and self._socket is not None:
            self._connection = _SocketConnection(self._socket, self._host, self._port,
                                                 tls=self._scheme == "https", timeout=seconds)
        elif self._connection is None:
            kind = http.client.HTTPSConnection if self._scheme == "https" else http.client.HTTPConnection
            self._connection = kind(self._host, self._port, timeout=seconds)
        self._connection.timeout = seconds
        if self._connection.sock is not None:
            self._connection.sock.settimeout(seconds)
        return self._connection

    def _drop(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _post(self, message: dict[str, Any], seconds: float) -> bytes:
        """Post ``message``; the reply's body (at most :data:`messages.MAX_ANSWER_BYTES` plus one).

        Raises:
            AnswerFault: ``late``, ``unreachable`` or ``http_error``.
        """
        body = messages.encode(message)
        for attempt in (1, 2):  # a kept connection the service closed meanwhile is opened again once
            connection = self._connect(seconds)
            try:
                connection.request("POST", self._path, body=body, headers={
                    "Content-Type": "application/json", "X-Tricktable-Session": self.session,
                    "X-Tricktable-Time-Ms": str(message.get("time_ms") or "")})
                reply = connection.getresponse()
                data = reply.read(messages.MAX_ANSWER_BYTES + 1)
                if not reply.isclosed():
                    self._drop()  # a longer body than an answer is: not worth reading to its end
            except TimeoutError:
                self._drop()
                raise messages.AnswerFault("late", f"no reply within {seconds * 1000:.0f} ms") from None
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError) as exc:
                self._drop()
                if attempt == 2:
                    raise messages.AnswerFault("unreachable", f"{self.url}: {exc}") from None
                continue
            except (OSError, http.client.HTTPException) as exc:
                self._drop()
                raise messages.AnswerFault("unreachable", f"{self.url}: {exc}") from None
            if not 200 <= reply.status < 300:
                raise messages.AnswerFault("http_error", f"{self.url} answered HTTP {reply.status} {reply.reason}")
            return data
        raise messages.AnswerFault("unreachable", self.url)  # not reached: the second attempt returns or raises

    def _tell(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(messages.AnswerFault):
            self._post(message, min(TELL_SECONDS, self.answer_seconds))

    def _exchange(self, message: dict[str, Any], number: int, seconds: float) -> bytes:
        return self._post(message, seconds)

    def close(self) -> None:
        """Close the kept connection."""
        self._drop()
