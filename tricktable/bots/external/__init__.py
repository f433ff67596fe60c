"""Bots in any language: a program on standard input/output, or an HTTP service, played as an SDK bot.

The protocol is one JSON object per message (docs/bots-any-language.md,
docs/bot-protocol.schema.json): the adapter sends ``hello``, ``decision``,
``error`` and ``end``; the bot answers each decision with the id of one of
its legal actions. :mod:`.messages` writes and reads the objects,
:mod:`.adapter` is what both adapters share (the clock, the faults, the
server's default action), :mod:`.exec_bot` runs a program,
:mod:`.webhook_bot` posts to a URL. The adapters are bots in the SDK's sense,
so the SDK runner brings the connection, reconnects and clocks, and every
command that takes a bot spec takes ``exec:CMD`` and ``webhook:URL``
(:func:`tricktable.bots.bot_factory`).
"""

from tricktable.bots.external.exec_bot import ExecBot
from tricktable.bots.external.messages import PROTOCOL_VERSION
from tricktable.bots.external.webhook_bot import WebhookBot

__all__ = ["PROTOCOL_VERSION", "ExecBot", "WebhookBot"]
