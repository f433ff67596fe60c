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
PLACEHOLDERS: tuple[str, ...] = ("address", "token_file", "token_fd", "seat", "name", "seed", "python", "tls_ca")

#: Crashes or timeouts of one entrant in one match before it forfeits the match: the tournament file's default
#: and the in-process runners' (``arena.play``, ``LocalRunner``); here so that the SDK's arena needs no pydantic.
FORFEIT_AFTER = 3


def _entrant_schema(schema: dict[str, Any]) -> None:
    """The published JSON Schema of an entrant table says what ``__post_init__`` and the config's shorthand accept.

    Exactly one of ``bot`` or ``command``; ``name`` may be left out with a bot (the bot spec names it).
    """
    schema["description"] = ("A bot (a built-in name, module:Class or path/to/file.py:Class) or a command "
                             "template with any of the placeholders " + ", ".join(PLACEHOLDERS) + "; the seat's "
                             "token is read from {token_file}, {token_fd} or $TRICKTABLE_TOKEN_FD.")
    schema.pop("required", None)
    for key in ("bot", "command"):
        schema["properties"][key] = {"title": key.title(), "type": "string"}
    schema["properties"]["files"] = {"title": "Files", "type": "array", "items": {"type": "string"},
                                     "description": "Paths the entrant's sandbox may read besides its command's."}
    schema["oneOf"] = [{"required": ["bot"], "not": {"required": ["command"]}},
                       {"required": ["name", "command"], "not": {"required": ["bot"]}}]


@dataclass(frozen=True, slots=True, kw_only=True)
class EntrantSpec:
    """One entrant: a name and either a ``bot`` (built-in, ``module:Class`` or ``file.py:Class``) or a ``command``.

    A command is a template of any program that plays a seat, with the
    placeholders of :data:`PLACEHOLDERS`. ``files``: paths (the entrant's
    program, its model weights) that its sandbox may read besides those named
    on its command line and the working directory
    (:mod:`tricktable.tournament.sandbox`).
    """

    # Read by pydantic when a tournament config validates its entrants: a misspelt key is an error, not ignored.
    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid", "title": "Entrant",
                                                      "json_schema_extra": _entrant_schema}

    name: str
    bot: str | None = None
    command: str | None = None
    files: tuple[str, ...] = ()

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


def entrant_names(specs: Sequence[str]) -> list[str]:
    """Names for bots given by spec: the spec itself, ``-2``, ``-3`` ... added when a spec comes again."""
    names: list[str] = []
    for spec in specs:
        label, n = spec, 2
        while label in names:
            label, n = f"{spec}-{n}", n + 1
        names.append(label)
    return names
