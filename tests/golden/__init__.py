"""Golden playthroughs: one whole random game per game and player layout, told one line per action.

Like OpenSpiel's playthrough files, each file pins the engine's behaviour
from a fixed seed: the deal as dealt, and for every decision the acting
seat, its hand, the trick on the table, its sorted legal actions and the
action chosen (uniformly at random by ``random.Random(seed)``), then what
the action produced (tricks won, exposures, deal scores) and the result.
Any change to the rules engine that changes a game shows up as a diff.

``python -m tests.golden --regenerate`` (``make golden``) rewrites the files;
``tests/records/test_golden.py`` compares them line by line.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tricktable.rules.actions import Action, describe
from tricktable.rules.cards import Card
from tricktable.rules.game import Trick
from tricktable.rules.registry import new_match

GOLDEN_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Playthrough:
    """A golden file: its name, game and options; the seed is derived from the name."""

    name: str
    game: str
    options: Mapping[str, Any] = field(default_factory=dict)
    #: Deals after which the game is aborted (random Cinq Cents never reaches its target).
    max_deals: int = 40

    @property
    def seed(self) -> str:
        return f"golden-{self.name}"

    @property
    def path(self) -> Path:
        return GOLDEN_DIR / f"{self.name}.txt"


PLAYTHROUGHS: tuple[Playthrough, ...] = (
    Playthrough("twenty_five-4p", "twenty_five", {"players": 4}),
    Playthrough("twenty_five-6p-sides2", "twenty_five", {"players": 6, "sides": 2}),
    Playthrough("twenty_five-6p-sides3", "twenty_five", {"players": 6, "sides": 3}),
    Playthrough("forty_five-2p", "forty_five", {"players": 2}),
    Playthrough("forty_five-3p", "forty_five", {"players": 3}),
    Playthrough("forty_five-4p", "forty_five", {"players": 4}),
    Playthrough("forty_five-4p-jink", "forty_five", {"players": 4, "jink": True}),
    Playthrough("forty_five-5p-alone", "forty_five", {"players": 5}),
    Playthrough("forty_five-6p", "forty_five", {"players": 6}),
    Playthrough("all_fives-2p", "all_fives", {"players": 2}),
    Playthrough("all_fives-3p", "all_fives", {"players": 3}),
    Playthrough("cinq_cents", "cinq_cents", {}, max_deals=3),
)


def _cards(items: Any) -> str:
    return " ".join(c.code if isinstance(c, Card) else str(c) for c in items) or "-"


def _trick(trick: Trick | None) -> str:
    if trick is None or not trick.cards:
        return "-"
    named = f" (named {trick.named_suit.value})" if trick.named_suit is not None else ""
    return f"led by {trick.leader}: {_cards(trick.cards)}{named}"


def _legal(legal: list[Action], shown: int = 40) -> str:
    """The legal actions; a long list (a declarer's 8,008 discards) as its size, ends and a digest of the whole."""
    names = [describe(a) for a in legal]
    if len(names) <= shown:
        return ", ".join(names)
    digest = hashlib.sha256("\n".join(names).encode()).hexdigest()[:16]
    return f"{len(names)} actions, from {names[0]} to {names[-1]}, sha256 {digest}"


def _action(recorded: Mapping[str, Any]) -> str:
    extra = {k: v for k, v in recorded.items() if k not in ("seat", "type")}
    if not extra:
        return str(recorded["type"])
    parts = [f"{k}={' '.join(v) if isinstance(v, list) else v}" for k, v in extra.items()]
    return f"{recorded['type']} {' '.join(parts)}"


def _deal_header(deal: Mapping[str, Any]) -> list[str]:
    head = f"deal {deal['number']}: dealer {deal['dealer']}"
    if deal.get("redeal"):
        head += " (redeal)"
    if deal.get("turn_up") is not None:
        head += f", turn-up {deal['turn_up']}"
    lines = [head, f"  deck: {' '.join(deal['deck'])}"]
    for seat, hand in sorted(deal["hands"].items(), key=lambda kv: int(kv[0])):
        lines.append(f"  hand {seat}: {' '.join(hand)}")
    if deal.get("kitty") is not None:
        lines.append(f"  kitty: {' '.join(deal['kitty'])}")
    return lines


def _deal_footer(deal: Mapping[str, Any]) -> list[str]:
    line = f"deal {deal['number']} over: trump {deal['trump'] or 'none'}, points {deal['points']}, " \
           f"scores {deal['scores']}"
    for key in ("bonus", "contract"):
        if key in deal:
            line += f", {key} {json.dumps(deal[key])}"
    return [line]


def render(play: Playthrough) -> str:
    """The playthrough text of ``play``: the same engine and seed give the same text."""
    match = new_match(play.game, play.options, seed=play.seed)
    rng = random.Random(play.seed)
    lines = [f"# golden playthrough {play.name}",
             f"# game {play.game}, options {json.dumps(match.config.to_options())}, seed {play.seed!r}",
             f"# first dealer {match.first_dealer}, sides {json.dumps([list(s) for s in match.config.sides])}"]
    lines += _deal_header(match.deal.to_record(match.scores_before))
    step = 0
    while not match.is_over:
        if len(match.finished) >= play.max_deals:
            match = match.abort(f"golden playthrough cut after {play.max_deals} deals")
            break
        seat = match.to_act
        assert seat is not None
        view = match.view(seat)
        legal = match.legal_actions()
        chosen = rng.choice(legal)
        deal_index = len(match.finished)
        action_index = len(match.deal.to_record(match.scores_before)["actions"])
        tricks_before = len(view.tricks)
        lines.append(f"{step:4d} seat {seat} | hand {_cards(view.hand)} | trick {_trick(view.current_trick)} "
                     f"| scores {list(view.scores)} | legal: {_legal(legal)}")
        match = match.apply(chosen)
        step += 1
        deal, before = match.all_deals()[deal_index]
        lines.append(f"     -> {_action(deal.recorded_action(action_index))}")
        record = deal.to_record(before)
        for n, trick in enumerate(record["tricks"][tricks_before:], start=tricks_before + 1):
            lines.append(f"     trick {n} won by {trick['winner']}: {' '.join(trick['cards'])} "
                         f"(led by {trick['leader']})")
        if deal.is_over:
            lines += _deal_footer(record)
            if not match.is_over:
                lines += _deal_header(match.deal.to_record(match.scores_before))
    if len(match.all_deals()) > len(match.finished):
        # Aborted part way: the deal in progress as far as it went.
        lines += [line.replace(" over:", " cut short:", 1) for line in
                  _deal_footer(match.deal.to_record(match.scores_before))]
    result = match.result
    assert result is not None
    lines.append(f"result: {result.status}, winners {list(result.winners)}, scores {list(result.scores)}, "
                 f"{result.reason}")
    return "\n".join(lines) + "\n"
