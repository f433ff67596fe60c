"""The pinned perft cases: for each game and a few layouts, the count of distinct legal action sequences by depth.

Each case starts from the first deal of a match dealt from a seed (its deck is
written in the file too, so an implementation without Python's shuffle can
deal it), after some given actions, and counts to a fixed depth with the
convention of :mod:`tricktable.rules.perft` (docs/perft.md). ``make golden``
writes ``perft.json`` from the readable engine, refusing when the fast path
counts otherwise; ``tests/rules/test_perft.py`` counts again with both engines.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tricktable.rules.perft import ENGINES, Engine, count, first_deck, start_match

PERFT_FILE = Path(__file__).resolve().parent / "perft.json"


@dataclass(frozen=True)
class PerftCase:
    """One pinned count: the start (game, options, seed, first actions) and the deepest depth counted."""

    name: str
    game: str
    options: dict[str, Any]
    seed: str
    depth: int
    after: tuple[str, ...] = ()


#: The cases, cheap enough for ``make test`` (about a second for both engines) and each showing something: the
#: layouts of each game, a dealer's forced rob, a deal counted to its end, the whole Cinq Cents auction (all
#: 23,751 of them), the declarer's 8,008 discards, and play after them.
PERFT_CASES: tuple[PerftCase, ...] = (
    PerftCase("twenty_five-4p", "twenty_five", {"players": 4, "first_dealer": 0}, "perft", 6),
    PerftCase("twenty_five-4p-dealer-robs", "twenty_five", {"players": 4, "first_dealer": 0}, "perft-10", 6),
    PerftCase("twenty_five-4p-to-the-end", "twenty_five", {"players": 4, "first_dealer": 0}, "perft", 12,
              ("play-4H", "rob-2H", "play-AH", "play-7H", "play-TH", "play-AD", "play-2D", "play-JD", "play-4S")),
    PerftCase("twenty_five-6p-sides2", "twenty_five", {"players": 6, "first_dealer": 0}, "perft", 7),
    PerftCase("twenty_five-6p-sides3", "twenty_five", {"players": 6, "sides": 3, "first_dealer": 0}, "perft", 7),
    PerftCase("forty_five-2p", "forty_five", {"players": 2, "first_dealer": 0}, "perft", 7),
    PerftCase("forty_five-4p-partners", "forty_five", {"players": 4, "first_dealer": 0}, "perft", 6),
    PerftCase("forty_five-4p-jink", "forty_five", {"players": 4, "jink": True, "first_dealer": 0}, "perft", 6),
    PerftCase("forty_five-5p-alone", "forty_five", {"players": 5, "first_dealer": 0}, "perft", 6),
    PerftCase("all_fives-2p", "all_fives", {"players": 2, "first_dealer": 0}, "perft", 6),
    PerftCase("all_fives-3p", "all_fives", {"players": 3, "first_dealer": 0}, "perft", 7),
    PerftCase("cinq_cents-auction", "cinq_cents", {"first_dealer": 0}, "perft", 4),
    PerftCase("cinq_cents-discard", "cinq_cents", {"first_dealer": 0}, "perft", 1,
              ("bid-7-H", "pass", "bid-8-S", "pass")),
    PerftCase("cinq_cents-play", "cinq_cents", {"first_dealer": 0}, "perft", 6,
              ("bid-7-H", "pass", "bid-8-S", "pass", "discard-TC-JC-5D-TH-AH-AS")),
)


def counts(case: PerftCase, engine: Engine = "readable") -> list[int]:
    """The case's counts at depths 1 to ``case.depth`` with ``engine``."""
    return [count(case.game, case.options, case.seed, level, after=case.after, engine=engine)
            for level in range(1, case.depth + 1)]


def entry(case: PerftCase) -> dict[str, Any]:
    """The case as the file writes it: the start, the options resolved, the first deck, and the counts.

    Raises:
        ValueError: the engines count differently (nothing is pinned then).
    """
    match = start_match(case.game, case.options, case.seed, case.after)
    by_engine = {engine: counts(case, engine) for engine in ENGINES}
    if len(set(map(tuple, by_engine.values()))) > 1:
        raise ValueError(f"{case.name}: the engines disagree: {by_engine}")
    resolved = match.config.to_options()
    resolved["first_dealer"] = match.first_dealer
    return {"name": case.name, "game": case.game, "options": resolved, "seed": case.seed,
            "deck": [card.code for card in first_deck(match)], "after": list(case.after),
            "counts": by_engine["readable"]}


def render() -> str:
    """The whole file's text (stable: the same cases, the same bytes)."""
    document = {"convention": "docs/perft.md", "cases": [entry(case) for case in PERFT_CASES]}
    text = json.dumps(document, indent=1, ensure_ascii=False)
    # A list of cards, actions or counts on one line: a case reads as a few lines, and a diff names the count.
    inline = re.sub(r"\[\n\s*([^\[\]{}]*?)\n\s*\]", lambda m: "[" + re.sub(r",\n\s*", ", ", m.group(1)) + "]", text)
    return inline + "\n"


def pinned() -> dict[str, dict[str, Any]]:
    """The file's cases by name."""
    cases: list[dict[str, Any]] = json.loads(PERFT_FILE.read_text(encoding="utf-8"))["cases"]
    return {case["name"]: case for case in cases}


def markdown_table() -> str:
    """The cases as docs/perft.md's table lists them (game, options, seed, first actions, counts by depth)."""
    lines = ["| case | game | options | seed | first actions | counts, depth 1, 2, ... |",
             "| --- | --- | --- | --- | --- | --- |"]
    for case in pinned().values():
        options = ", ".join(f"{key}={json.dumps(value)}" for key, value in sorted(case["options"].items())
                            if key in {"players", "sides", "jink", "first_dealer"})
        after = " ".join(f"`{text}`" for text in case["after"]) or "none"
        numbers = ", ".join(f"{n:,}" for n in case["counts"])
        lines.append(f"| {case['name']} | {case['game']} | {options} | `{case['seed']}` | {after} | {numbers} |")
    return "\n".join(lines) + "\n"
