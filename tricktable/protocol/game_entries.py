"""Each registered game's entries in ``tricktable/v1/game.proto``, written from its definition: ``make protos``.

A game reaches the wire through three entries of game.proto: its value in
``enum Game`` (``GAME_`` and its name upper-cased, the link
:mod:`tricktable.protocol.convert` checks at import), an options message with
one field per option of its schema (:attr:`GameDefinition.options`), and a
field of that message in ``TableOptions``' ``oneof game_options`` named as the
game. All three follow from the definition, so they are written from it
rather than by hand: ``make protos`` runs this module before generating the
code, and ``make protos-check`` fails while an entry is missing.

Only what is missing is added, at the end of its block with the next free
number, and nothing already there is changed: every existing v1 contract
keeps its number and name (``make buf-breaking``), and a comment an author
has since rewritten stays as written. An option added to a game's schema is
added at the end of its message, which is why a schema lists its options in
the message's order and a new option goes last.

Usage: ``python -m tricktable.protocol.game_entries [--check] [PROTO]`` (PROTO: the game.proto to write;
by default the package's own).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tricktable.rules.definition import GameDefinition
from tricktable.rules.registry import game_definition, games

#: The package's game.proto.
GAME_PROTO = Path(__file__).resolve().parent.parent / "v1" / "game.proto"

#: How an option of each schema kind (:data:`tricktable.rules.definition.OPTION_KINDS`) is declared in its
#: game's options message; ``convert.py`` writes and reads the values, tests/protocol/test_option_schema.py
#: checks the declarations.
FIELD_TYPES: dict[str, str] = {
    "int": "optional int32",
    "bool": "optional bool",
    "deal_pattern": "DealPattern",
    "bid_values": "repeated BidValue",
}

_NUMBER = re.compile(r"=\s*(\d+)\s*[;\[]")
_RESERVED = re.compile(r"^\s*reserved\s+([^;]*);", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class _Block:
    """A ``{ ... }`` block of the proto text: ``open`` indexes its brace, ``close`` its closing brace."""

    open: int
    close: int

    def body(self, text: str) -> str:
        """The block's text between its braces, comments removed (so a number in a comment is not counted)."""
        return re.sub(r"//[^\n]*", "", text[self.open + 1:self.close])


def enum_value(game: str) -> str:
    """The ``Game`` value of a game name (``"all_fives"`` -> ``GAME_ALL_FIVES``), as ``convert.by_name`` reads it."""
    return f"GAME_{game.upper()}"


def options_message(game: str) -> str:
    """The options message of a game name (``"all_fives"`` -> ``AllFivesOptions``)."""
    return "".join(part.capitalize() for part in game.split("_")) + "Options"


def _title(game: str) -> str:
    return " ".join(part.capitalize() for part in game.split("_"))


def _find(text: str, header: str, within: _Block | None = None) -> _Block | None:
    """The block opened by ``header`` (a regex up to its ``{``), searched inside ``within`` when given."""
    start, end = (0, len(text)) if within is None else (within.open + 1, within.close)
    found = re.compile(header + r"\s*\{", re.MULTILINE).search(text, start, end)
    if found is None:
        return None
    depth, index = 0, found.end() - 1
    while index < len(text):
        char = text[index]
        if text.startswith("//", index):
            index = text.index("\n", index)
            continue
        depth += (char == "{") - (char == "}")
        if depth == 0:
            return _Block(found.end() - 1, index)
        index += 1
    raise ValueError(f"game.proto: the block {header!r} is not closed")


def _required(text: str, header: str, within: _Block | None = None) -> _Block:
    block = _find(text, header, within)
    if block is None:
        raise ValueError(f"game.proto has no {header.strip('^ ')!r} block")
    return block


def _next_number(text: str, block: _Block) -> int:
    """One more than any number used or reserved in the block (a nested message's numbers included: harmless)."""
    body = block.body(text)
    used = [int(n) for n in _NUMBER.findall(body)]
    for reserved in _RESERVED.findall(body):
        used.extend(int(n) for n in re.findall(r"\d+", reserved))
    return max(used, default=0) + 1


def _declares(text: str, block: _Block, name: str) -> bool:
    return re.search(rf"(^|\s){re.escape(name)}\s*=", block.body(text), re.MULTILINE) is not None


def _insert_at_close(text: str, block: _Block, lines: Sequence[str], indent: str) -> str:
    """``lines`` as the block's last entries, each indented by ``indent`` (the closing brace's own line kept)."""
    line_start = text.rindex("\n", 0, block.close) + 1
    added = "".join(f"{indent}{line}\n" for line in lines)
    return text[:line_start] + added + text[line_start:]


def _field_lines(name: str, kind: str, number: int) -> list[str]:
    return [f"// Option `{name}` (docs/games.md); unset: the rules' default.",
            f"{FIELD_TYPES[kind]} {name} = {number};"]


def missing(text: str, definitions: Iterable[GameDefinition]) -> list[str]:
    """What game.proto's ``text`` lacks for ``definitions``, one line each ([] when nothing is missing).

    Raises:
        ValueError: when the text lacks ``enum Game``, ``message TableOptions`` or its ``oneof game_options``.
    """
    return _completed(text, definitions)[1]


def add_missing(text: str, definitions: Iterable[GameDefinition]) -> str:
    """``text`` with every missing entry of ``definitions`` added; the same text when none is missing.

    Raises:
        ValueError: when the text lacks ``enum Game``, ``message TableOptions`` or its ``oneof game_options``.
    """
    return _completed(text, definitions)[0]


def _completed(text: str, definitions: Iterable[GameDefinition]) -> tuple[str, list[str]]:
    """The text with what was missing added, and what that was (each entry is looked for in the text so far)."""
    notes: list[str] = []
    for definition in definitions:
        game = definition.name
        if not _declares(text, _required(text, r"^enum Game"), enum_value(game)):
            notes.append(f"{game}: the Game value {enum_value(game)}")
            text = _add_enum_value(text, game)
        message = _find(text, rf"^message {options_message(game)}\b")
        if message is None:
            notes.append(f"{game}: the message {options_message(game)}")
            text = _add_message(text, game)
        for option in definition.options:
            message = _required(text, rf"^message {options_message(game)}\b")
            if not _declares(text, message, option.name):
                notes.append(f"{game}: the field {options_message(game)}.{option.name}")
                text = _insert_at_close(text, message, _field_lines(option.name, option.kind,
                                                                    _next_number(text, message)), "  ")
        table = _required(text, r"^message TableOptions")
        oneof = _required(text, r"^\s*oneof game_options", table)
        if not _declares(text, oneof, game):
            notes.append(f"{game}: the field TableOptions.{game} in oneof game_options")
            text = _insert_at_close(text, oneof, [
                f"// {_title(game)} options.",
                f"{options_message(game)} {game} = {_next_number(text, table)};"], "    ")
    return text, notes


def _add_enum_value(text: str, game: str) -> str:
    block = _required(text, r"^enum Game")
    return _insert_at_close(text, block, [
        f"// {_title(game)} (docs/games.md), record name \"{game}\".",
        f"{enum_value(game)} = {_next_number(text, block)};"], "  ")


def _add_message(text: str, name: str) -> str:
    """The message, without its fields (added next, as any missing field is), just above TableOptions' comment."""
    table = _required(text, r"^message TableOptions")
    start = text.rindex("\n", 0, table.open) + 1
    while True:
        above = text.rfind("\n", 0, start - 1) + 1
        if not text[above:start].startswith("//"):
            break
        start = above
    message = (f"// Options of a {_title(name)} table (docs/games.md). Unset fields take the rules' defaults.\n"
               f"message {options_message(name)} {{\n}}\n\n")
    return text[:start] + message + text[start:]


def registered() -> list[GameDefinition]:
    """The definitions of the registry's games, in its order (the order new entries are added in)."""
    return [game_definition(game) for game in games()]


def main(argv: Sequence[str]) -> int:
    """Write the missing entries into game.proto (``--check``: only list them, and fail when there are any)."""
    parser = argparse.ArgumentParser(prog="python -m tricktable.protocol.game_entries",
                                     description="Write each registered game's entries into game.proto.")
    parser.add_argument("--check", action="store_true", help="only list what is missing; exit 1 when anything is")
    parser.add_argument("proto", nargs="?", type=Path, default=GAME_PROTO,
                        help="the game.proto (default: the package's)")
    args = parser.parse_args(argv)
    proto: Path = args.proto
    check: bool = args.check
    text = proto.read_text(encoding="utf-8")
    notes = missing(text, registered())
    if check:
        for note in notes:
            print(f"{proto} lacks {note}: run make protos", file=sys.stderr)
        return 1 if notes else 0
    if notes:
        proto.write_text(add_missing(text, registered()), encoding="utf-8")
    for note in notes:
        print(f"added to {proto.name}: {note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
