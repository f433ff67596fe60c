"""Counterfactual replay: a recorded game played again on its decks with one seat's bot swapped.

The question a bot author asks after a tournament is "would my new version
have won this game?". Card luck is taken out by replaying the *same* decks:
deal ``i`` of the replay is dealt from deal ``i`` of the record (past the
record's last deal, from the record's seed as the server derives decks, so
a replay that runs longer still gets fair shuffles).

Who plays what:

- the swapped seat is asked by the new bot from deal ``from_deal`` on
  (1-based position in the record's ``deals``, redeals counted, as
  ``tricktable verify`` counts them); before that it replays its record;
- every other seat replays its own recorded actions of that deal, in order,
  while the rules accept them. At its first recorded action the rules refuse
  (or when its record has none left), the seat *leaves its record* and a
  stand-in bot plays it for the rest of the game: recorded actions of a game
  that has gone another way mean nothing any more.

The replay is played by the one in-process match loop,
:func:`tricktable.rules.match.play_out`, with the one deal limit; a match still running
there is aborted as everywhere else. With the same deterministic bot at the
swapped seat the replay is the record, action for action.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tricktable.bots import make_bot
from tricktable.client_sdk.bot import Bot, action_of, is_pending
from tricktable.rules.actions import Action
from tricktable.rules.cards import Card
from tricktable.rules.errors import RuleError
from tricktable.rules.game import Seat
from tricktable.rules.match import Match, play_out
from tricktable.rules.record import ANNOTATION_KEY, GameRecord
from tricktable.rules.registry import game_rules
from tricktable.rules.shuffle import SeededDecks

#: The stand-in bot when none is named: deterministic, and plays every game sensibly.
DEFAULT_STAND_IN = "heuristic"


class ContinuedDecks:
    """The record's decks in order, then decks derived from ``seed`` (a replay may run longer than the record)."""

    def __init__(self, decks: Sequence[Sequence[Card]], seed: str) -> None:
        self.decks = [tuple(d) for d in decks]
        self.after = SeededDecks(seed)

    def deck(self, index: int, cards: Sequence[Card]) -> tuple[Card, ...]:
        if index < len(self.decks):
            return self.decks[index]
        return self.after.deck(index, cards)


@dataclass(frozen=True, slots=True, kw_only=True)
class SideResult:
    """How one side ended a match: its final score, whether it won, and the match's status."""

    score: int
    won: bool
    status: str

    def __str__(self) -> str:
        outcome = "won" if self.won else "not won" if self.status == "finished" else self.status
        return f"{self.score} ({outcome})"


@dataclass(frozen=True, slots=True, kw_only=True)
class LeftRecord:
    """Where a seat stopped replaying its record: the deal (1-based position) and its own action index there."""

    seat: Seat
    deal: int
    action: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Replay:
    """One counterfactual replay of a record: what was swapped, the replayed match, and both results."""

    seat: Seat
    bot: str
    stand_in: str
    from_deal: int
    match: Match
    recorded: SideResult
    replayed: SideResult
    left: tuple[LeftRecord, ...]
    #: Every deal of the replay has exactly the record's actions (the swapped bot played as recorded).
    identical: bool

    @property
    def score_change(self) -> int:
        """The swapped seat's side: replayed final score minus recorded."""
        return self.replayed.score - self.recorded.score

    @property
    def verdict(self) -> str:
        """``won -> lost``, ``lost -> won`` or ``same result``, for the swapped seat's side."""
        if self.recorded.won == self.replayed.won:
            return "same result"
        return "lost -> won" if self.replayed.won else "won -> lost"


def _side_result(sides: Sequence[Sequence[int]], seat: Seat, status: str, winners: Sequence[int],
                 scores: Sequence[int]) -> SideResult:
    side = next(k for k, members in enumerate(sides) if seat in members)
    return SideResult(score=scores[side], won=side in winners, status=status)


class _Chooser:
    """``choose(match, seat)`` for :func:`play_out`: the swapped bot, recorded actions, or a stand-in."""

    def __init__(self, record: GameRecord, seat: Seat, bot: Bot, stand_in: str, from_deal: int, seed: str) -> None:
        self.seat = seat
        self.bot = bot
        self.from_deal = from_deal
        players = len(record.seats)
        #: deal index -> seat -> that seat's recorded actions in the deal, in order.
        self.recorded: list[list[list[Action]]] = []
        for deal in record.deals:
            per_seat: list[list[Action]] = [[] for _ in range(players)]
            for recorded in deal.actions:
                if 0 <= recorded.seat < players:
                    per_seat[recorded.seat].append(recorded.action)
            self.recorded.append(per_seat)
        self.used: dict[tuple[int, Seat], int] = {}
        self.stand_ins: dict[Seat, Bot] = {}
        self.stand_in = stand_in
        self.seed = seed
        self.left: list[LeftRecord] = []

    def __call__(self, match: Match, seat: Seat) -> Action:
        deal = len(match.finished)
        if seat == self.seat and deal + 1 >= self.from_deal:
            return _answer(self.bot, match, seat)
        if seat in self.stand_ins:
            return _answer(self.stand_ins[seat], match, seat)
        used = self.used.get((deal, seat), 0)
        mine = self.recorded[deal][seat] if deal < len(self.recorded) else []
        if used < len(mine):
            try:
                match.check(mine[used], seat)
            except RuleError:
                pass
            else:
                self.used[(deal, seat)] = used + 1
                return mine[used]
        self.left.append(LeftRecord(seat=seat, deal=deal + 1, action=used))
        self.stand_ins[seat] = make_bot(self.stand_in, f"{self.seed}|stand-in|{seat}")
        return _answer(self.stand_ins[seat], match, seat)


def _answer(bot: Bot, match: Match, seat: Seat) -> Action:
    choice = bot.choose_action(match.view(seat))
    if is_pending(choice):
        raise TypeError("an asynchronous bot cannot replay in-process; give it a synchronous choose_action")
    return action_of(choice)


def replay(record: GameRecord, seat: Seat, bot: str, *, stand_in: str = DEFAULT_STAND_IN, from_deal: int = 1,
           bot_seed: str = "replay") -> Replay:
    """Replay ``record`` with ``bot`` at ``seat`` (see the module docstring).

    Raises:
        ValueError: no such seat, deal or bot (``bots.make_bot``'s message), or a bot failed or chose a
            refused action.
        OptionsError: the record's options are not valid for its game.
    """
    players = len(record.seats)
    if not 0 <= seat < players:
        raise ValueError(f"no seat {seat}: the record has seats 0-{players - 1}")
    if not 1 <= from_deal <= len(record.deals):
        raise ValueError(f"no deal {from_deal}: the record has deals 1-{len(record.deals)}")
    try:
        swapped = make_bot(bot, bot_seed)
        make_bot(stand_in, bot_seed)  # named wrong: say so before playing anything
    except KeyError as exc:  # an unknown built-in name; BotSpecError is a ValueError and passes through
        raise ValueError(str(exc.args[0])) from None
    seed = record.seed if record.seed is not None else "counterfactual"
    decks = ContinuedDecks([d.deck for d in record.deals], seed)
    match = Match.start(game_rules(record.game), record.options, decks, seed=record.seed)
    chooser = _Chooser(record, seat, swapped, stand_in, from_deal, bot_seed)
    try:
        match = play_out(match, chooser)
    except RuleError as exc:
        raise ValueError(f"a bot chose an action the rules refuse: {exc}") from None
    except Exception as exc:  # a bot's crash ends this replay, never the others of the run
        raise ValueError(f"a bot failed: {type(exc).__name__}: {exc}") from None
    if not match.is_over:
        match = match.abort("counterfactual replay: deal limit reached")
    result = match.final_result
    recorded = record.result
    replayed_deals = match.to_record(seed=record.seed)["deals"]
    identical = ([[a for a in d["actions"]] for d in replayed_deals]  # the bots' notes are not the game
                 == [[{k: v for k, v in a.raw.items() if k != ANNOTATION_KEY} for a in d.actions]
                     for d in record.deals])
    return Replay(
        seat=seat, bot=bot, stand_in=stand_in, from_deal=from_deal, match=match,
        recorded=_side_result(record.sides, seat, recorded.status, recorded.winners, recorded.scores),
        replayed=_side_result(record.sides, seat, result.status, result.winners, result.scores),
        left=tuple(chooser.left), identical=identical,
    )


def mirror_seat(record: GameRecord, seat: Seat) -> Seat:
    """The seat that plays the same deals from the other side: the first seat of the next side.

    ``--duplicate`` seats the bot there too, so it is judged on both sides' cards.
    """
    sides = record.sides
    side = next(k for k, members in enumerate(sides) if seat in members)
    return sides[(side + 1) % len(sides)][0]


def replay_json(result: Replay) -> dict[str, Any]:
    """A replay as plain JSON values (``tricktable replay --json``)."""
    return {
        "seat": result.seat, "bot": result.bot, "stand_in": result.stand_in, "from_deal": result.from_deal,
        "recorded": {"score": result.recorded.score, "won": result.recorded.won, "status": result.recorded.status},
        "replayed": {"score": result.replayed.score, "won": result.replayed.won, "status": result.replayed.status},
        "score_change": result.score_change, "verdict": result.verdict, "identical": result.identical,
        "left_record": [{"seat": x.seat, "deal": x.deal, "action": x.action} for x in result.left],
    }


__all__ = ["DEFAULT_STAND_IN", "ContinuedDecks", "LeftRecord", "Replay", "SideResult", "mirror_seat", "replay",
           "replay_json"]
