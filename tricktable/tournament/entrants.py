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

PLACEHOLDERS: tuple[str, ...] = ("address", "token", "seat", "name", "seed", "python", "tls_ca")


def _entrant_schema(schema: dict[str, Any]) -> None:
    """The published JSON Schema of an entrant table says what ``__post_init__`` and the config's shorthand accept.

    Exactly one of ``bot`` or ``command``; ``name`` may be left out with a bot (the bot spec names it).
    """
    schema["description"] = ("A bot (a built-in name, module:Class or path/to/file.py:Class) or a command "
                             "template with {token} and any of the placeholders " + ", ".join(PLACEHOLDERS) + ".")
    schema.pop("required", None)
    for key in ("bot", "command"):
        schema["properties"][key] = {"title": key.title(), "type": "string"}
    schema["oneOf"] = [{"required": ["bot"], "not": {"required": ["command"]}},
                       {"required": ["name", "command"], "not": {"required": ["bot"]}}]


@dataclass(frozen=True, slots=True, kw_only=True)
class EntrantSpec:
    """One entrant: a name and either a ``bot`` (built-in, ``module:Class`` or ``file.py:Class``) or a ``command``.

    A command is a template of any program that plays a seat, with the
    placeholders of :data:`PLACEHOLDERS` (``{token}`` is required).
    """

    # Read by pydantic when a tournament config validates its entrants: a misspelt key is an error, not ignored.
    __pydantic_config__: ClassVar[dict[str, Any]] = {"extra": "forbid", "title": "Entrant",
                                                      "json_schema_extra": _entrant_schema}

    name: str
    bot: str | None = None
    command: str | None = None

    def __post_init__(self) -> None:
        """Raises ValueError (the config reports it with the entrant's position) for an entrant no runner can start."""
        if not self.name:
            raise ValueError("every entrant needs a non-empty name")
        if (self.bot is None) == (self.command is None):
            raise ValueError(f"entrant {self.name!r}: give exactly one of 'bot' or 'command'")
        if self.command is not None:
            try:
                self.command.format(**{k: "" for k in PLACEHOLDERS})
            except (KeyError, IndexError, ValueError) as exc:
                raise ValueError(f"entrant {self.name!r}: bad command template {self.command!r}: unknown "
                                 f"placeholder {exc} (placeholders: {', '.join(PLACEHOLDERS)})") from None
            if "{token}" not in self.command:
                raise ValueError(f"entrant {self.name!r}: the command must contain {{token}}")


def entrant_names(specs: Sequence[str]) -> list[str]:
    """Names for bots given by spec: the spec itself, ``-2``, ``-3`` ... added when a spec comes again."""
    names: list[str] = []
    for spec in specs:
        label, n = spec, 2
        while label in names:
            label, n = f"{spec}-{n}", n + 1
        names.append(label)
    return names
