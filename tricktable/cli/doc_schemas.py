"""The published JSON Schemas' game names, written from the registry: ``make schemas``.

Three files of docs/ name the games, for editors and other languages' tools
that check a file before Tricktable reads it: ``record.schema.json`` (a game
record's ``game``, docs/records.md), ``bot-protocol.schema.json`` (the
``hello`` an external bot receives, docs/bots-any-language.md) and
``tournament.schema.json`` (a tournament file's ``game``, docs/tournament.md).
The registry is the one list of game names
(:func:`tricktable.rules.registry.games`), so their lists are written from it
rather than by hand:

- the record and bot-protocol schemas are written by hand except their
  ``game`` enum, which is rewritten in place on its one line (the rest of
  each file, kept as its author laid it out, is not touched);
- the tournament schema is made whole from the tournament configuration's
  model (:func:`tricktable.tournament.config.schema_text`).

``make schemas`` writes them; ``make schemas-check`` (and
``tests/records/test_schema.py``, ``tests/tournament/test_config.py``) fails
naming each game a file lacks, or names without its being registered.

Usage: ``python -m tricktable.cli.doc_schemas [--check] [DOCS]`` (DOCS: the folder holding the schemas;
by default ``docs`` under the current folder, the repository's root when run by make).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from tricktable.rules.registry import games
from tricktable.tournament.config import schema_text

RECORD_SCHEMA = "record.schema.json"
BOT_PROTOCOL_SCHEMA = "bot-protocol.schema.json"
TOURNAMENT_SCHEMA = "tournament.schema.json"
#: The schemas written by hand but for their one ``game`` line.
HAND_WRITTEN: tuple[str, ...] = (RECORD_SCHEMA, BOT_PROTOCOL_SCHEMA)
#: What a user runs to bring the schemas up to date with the registry.
COMMAND = "make schemas"

#: A schema's ``game`` property, on one line: ``"game": {"enum": [...]}`` (a tournament schema's spans lines).
_GAME_LINE = re.compile(r'^(?P<head>\s*"game": )(?P<enum>\{"enum": \[[^\]\n]*\]\})', re.MULTILINE)


def with_games(text: str, names: Sequence[str]) -> str:
    """A hand-written schema ``text`` with its ``game`` enum set to ``names``, every other byte as it was.

    Raises:
        ValueError: the schema has no ``"game": {"enum": [...]}`` line to rewrite.
    """
    enum = json.dumps({"enum": list(names)})
    written, count = _GAME_LINE.subn(lambda m: m.group("head") + enum, text, count=1)
    if count != 1:
        raise ValueError('the schema has no line \'"game": {"enum": [...]}\' to write the games into')
    return written


def schema_games(text: str) -> list[str]:
    """The game names a schema's ``game`` property allows: its one-line enum, or the top-level property's."""
    line = _GAME_LINE.search(text)
    found = json.loads(line.group("enum")) if line else json.loads(text).get("properties", {}).get("game", {})
    return [str(name) for name in found.get("enum", [])]


def wanted(docs: Path) -> dict[Path, str]:
    """Each schema file of ``docs`` and its text as the registry's games make it now."""
    out = {docs / name: with_games((docs / name).read_text(encoding="utf-8"), games()) for name in HAND_WRITTEN}
    return {**out, docs / TOURNAMENT_SCHEMA: schema_text()}


def problems(path: Path, text: str | None, want: str) -> list[str]:
    """What is wrong with the schema ``path`` holding ``text`` (``None``: absent) when it should hold ``want``."""
    if text == want:
        return []
    if text is None:
        return [f"{path} is missing"]
    try:
        have = schema_games(text)
    except (json.JSONDecodeError, AttributeError):
        return [f"{path} is not a JSON Schema object"]
    notes = [f"{path} lacks the game {game!r}" for game in games() if game not in have]
    notes += [f"{path} names the game {game!r}, which is not registered" for game in have if game not in games()]
    return notes or [f"{path} differs from what the registry and the tournament model make"]


def main(argv: Sequence[str]) -> int:
    """Write the schemas' game names from the registry (``--check``: only say what is stale, and fail then)."""
    parser = argparse.ArgumentParser(prog="python -m tricktable.cli.doc_schemas",
                                     description="Write the registered games into the JSON Schemas of docs/.")
    parser.add_argument("--check", action="store_true", help="only list what is stale; exit 1 when anything is")
    parser.add_argument("docs", nargs="?", type=Path, default=Path("docs"),
                        help="the folder holding the schemas (default: docs)")
    args = parser.parse_args(argv)
    check: bool = args.check
    stale = 0
    for path, want in wanted(args.docs).items():
        text = path.read_text(encoding="utf-8") if path.exists() else None
        notes = problems(path, text, want)
        if not notes:
            continue
        stale += 1
        if check:
            for note in notes:
                print(f"{note}: run {COMMAND}", file=sys.stderr)
        else:
            path.write_text(want, encoding="utf-8")
            print(f"wrote {path}: {', '.join(games())}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
