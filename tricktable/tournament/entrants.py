"""Who plays in a tournament or an arena: an entrant is a name and either a bot or a command template.

Why a module of its own, apart from :mod:`tricktable.tournament.config`: the in-process
arena (:mod:`tricktable.tournament.arena`, part of the SDK) plays entrants too, and the
SDK installs with grpcio and protobuf only; the config's validation library
(pydantic) comes with the ``cli`` extra. The config validates
:class:`EntrantSpec` as it is (pydantic reads the dataclass's fields and
runs its ``__post_init__``), so the checks below have one home.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

#: What a command template may name. The seat's token is never one: a command line is readable by every local
#: user. A program gets it on a descriptor: ``{token_file}`` (``/dev/fd/N``), ``{token_fd}`` (N) or the
#: environment variable ``TRICKTABLE_TOKEN_FD`` (:mod:`tricktable.client_sdk.handoff`).
PLACEHOLDERS: tuple[str, ...] = ("address", "token_file", "token_fd", "seat", "name", "seed", "python", "tls_ca",
                                  "control_fd")
#: Placeholders of one seat: a long-lived command plays many seats, each handed on its control descriptor.
SEAT_PLACEHOLDERS: tuple[str, ...] = ("token_file", "token_fd", "seat", "seed")

#: Crashes or timeouts of one entrant in one match before it forfeits the match: the tournament file's default
#: and the in-process runners' (``arena.play``, ``LocalRunner``); here so that the SDK's arena needs no pydantic.
FORFEIT_AFTER = 3


def _entrant_schema(schema: dict[str, Any]) -> None:
    """The published JSON Schema of an entrant table says what ``__post_init__`` and the config's shorthand accept.

    Exactly one of ``bot`` or ``command``; ``name`` may be left out with a bot (the bot spec names it).
    """
    schema["description"] = ("A bot (a built-in name, module:Class, path/to/file.py:Class, exec:PROGRAM for a program "
                             "in any language on stdin/stdout, docs/bots-any-language.md, or webhook:URL) or a command "
                             "template with any of the placeholders " + ", ".join(PLACEHOLDERS) + "; the seat's "
                             "token is read from {token_file}, {token_fd} or $TRICKTABLE_TOKEN_FD.")
    schema.pop("required", None)
    for key in ("bot", "command"):
        schema["properties"][key] = {"title": key.title(), "type": "string"}
    schema["properties"]["long_lived"] = {
        "title": "Long Lived", "type": "boolean",
        "description": "One process plays many matches, never two tables of one deck set, its seats handed on "
                       "its control descriptor ({control_fd}). Default: true for a bot, false for a command."}
    schema["properties"]["files"] = {"title": "Files", "type": "array", "items": {"type": "string"},
                                     "description": "Paths the entrant's sandbox may read besides its command's."}
    schema["oneOf"] = [{"required": ["bot"], "not": {"required": ["command"]}},
                       {"required": ["name", "command"], "not": {"required": ["bot"]}}]


@dataclass(frozen=True, slots=True, kw_only=True)
class EntrantSpec:
    """One entrant: a name and either a ``bot`` (any bot spec: :func:`tricktable.bots.bot_factory`) or a ``command``.

    A command is a template of any program that plays a seat, with the
    placeholders of :data:`PLACEHOLDERS`. ``files``: paths (the entrant's
    program, its model weights) that its sandbox may read besides those named
    on its command line and the working directory
    (:mod:`tricktable.tournament.sandbox`). ``long_lived``: whether one
    process plays many matches over the server, its seats handed on its
    control descriptor (:mod:`tricktable.tournament.control`); unset, a bot
    is long-lived and a command is started per match (it must speak the
    protocol to opt in).
    """

    # Read by pydantic when a tournament config validates its entrants: a misspelt key is an error, not ignored.
    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid", "title": "Entrant",
                                                      "json_schema_extra": _entrant_schema}

    name: str
    bot: str | None = None
    command: str | None = None
    files: tuple[str, ...] = ()
    long_lived: bool | None = None

    def lives_long(self) -> bool:
        """Whether this entrant's process plays many matches (see :attr:`long_lived`)."""
        return self.long_lived if self.long_lived is not None else self.command is None

    def __post_init__(self) -> None:
        """Raises ValueError (the config reports it with the entrant's position) for an entrant no runner can start."""
        if not self.name:
            raise ValueError("every entrant needs a non-empty name")
        if (self.bot is None) == (self.command is None):
            raise ValueError(f"entrant {self.name!r}: give exactly one of 'bot' or 'command'")
        if self.command is not None:
            if "{token}" in self.command:
                raise ValueError(f"entrant {self.name!r}: {{token}} would put the seat's token on a command line, "
                                 "where every local user can read it; read it from {token_file} (a path), "
                                 "{token_fd} or $TRICKTABLE_TOKEN_FD instead")
            try:
                self.command.format(**{k: "" for k in PLACEHOLDERS})
            except (KeyError, IndexError, ValueError) as exc:
                raise ValueError(f"entrant {self.name!r}: bad command template {self.command!r}: unknown "
                                 f"placeholder {exc} (placeholders: {', '.join(PLACEHOLDERS)})") from None
            named = [p for p in PLACEHOLDERS if "{" + p + "}" in self.command]
            wrong = [p for p in named if p in SEAT_PLACEHOLDERS] if self.lives_long() else (
                ["control_fd"] if "control_fd" in named else [])
            if wrong:
                why = ("a long-lived process plays many seats: each comes on its control descriptor"
                       if self.lives_long() else "only a long-lived command (long_lived = true) has one")
                raise ValueError(f"entrant {self.name!r}: {', '.join('{' + p + '}' for p in wrong)} in its "
                                 f"command: {why}")


def entrant_names(specs: Sequence[str]) -> list[str]:
    """Names for bots given by spec: the spec itself, ``-2``, ``-3`` ... added when a spec comes again."""
    names: list[str] = []
    for spec in specs:
        label, n = spec, 2
        while label in names:
            label, n = f"{spec}-{n}", n + 1
        names.append(label)
    return names
