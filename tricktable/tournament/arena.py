"""The arena: one call plays bots against each other in-process and returns every record and result.

Kaggle-style (``env.run([agent1, agent2])``) for bot authors at a notebook or
in a test: no server, no processes, the rules engine as the table. Each game
is played by the tournament's in-process runner
(:class:`tricktable.tournament.runner.LocalRunner`, the loop the tournaments and the
1,000-game benchmark use), so a bot's faults count and forfeit exactly as in
a tournament, and the records are those ``tricktable verify`` replays.

Bots are specs, as everywhere (:func:`bots.make_bot`): a built-in name,
``module:Class``, ``path/to/file.py:Class``, or ``__main__:Class`` for a
class defined in the notebook or script itself. Give one bot per side (it
fills every seat of its side) or one per seat. ``duplicate=True`` plays
each deck set once per rotation of the bots through the sides, so every
bot holds every side's cards once and the luck of the deal cancels out.

    >>> from tricktable.tournament.arena import play
    >>> result = play("all_fives", ["heuristic", "random"], games=2, duplicate=True, seed="doc")
    >>> [outcome.status for outcome in result.outcomes]
    ['finished', 'finished']
    >>> print(result.summary())
    all_fives: 2 games
      heuristic: 2 wins of 2, 134 points, 0 faults, 0 forfeits
      random: 0 wins of 2, 102 points, 0 faults, 0 forfeits
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tricktable.rules.match import MAX_DEALS
from tricktable.rules.registry import game_rules
from tricktable.tournament.entrants import FORFEIT_AFTER, EntrantSpec, entrant_names
from tricktable.tournament.runner import LocalRunner, MatchOutcome
from tricktable.tournament.schedule import MatchSpec, deck_sets_for


@dataclass(frozen=True, slots=True)
class BotTotals:
    """One bot's figures over the arena's games."""

    name: str
    games: int = 0
    #: Wins count 1, a win shared by k sides 1/k.
    wins: float = 0.0
    #: Points of the sides this bot played, summed over the games.
    points: int = 0
    faults: int = 0
    forfeits: int = 0


@dataclass(frozen=True, slots=True)
class ArenaResult:
    """What the arena played: one outcome per game (status, winners, scores, faults, the record), in order."""

    game: str
    #: The bots' names (their specs, numbered when one bot plays twice).
    names: tuple[str, ...]
    outcomes: tuple[MatchOutcome, ...] = field(default=())
    #: For each game, the bot name at each seat.
    seatings: tuple[tuple[str, ...], ...] = field(default=())

    @property
    def records(self) -> list[Mapping[str, Any]]:
        """The game records (docs/records.md), one per game."""
        return [o.record for o in self.outcomes]

    def totals(self) -> dict[str, BotTotals]:
        """Games, wins, points, faults and forfeits per bot."""
        acc = {n: {"games": 0, "wins": 0.0, "points": 0, "faults": 0, "forfeits": 0} for n in self.names}
        for outcome, seats in zip(self.outcomes, self.seatings, strict=True):
            sides = outcome.record.get("sides") or []
            for side, members in enumerate(sides):
                playing = {seats[s] for s in members}
                for name in playing:
                    row = acc[name]
                    row["games"] += 1
                    if side in outcome.winners:
                        row["wins"] += 1.0 / len(outcome.winners)
                    if side < len(outcome.scores):
                        row["points"] += outcome.scores[side]
            for name, faults in outcome.faults.items():
                acc[name]["faults"] += faults
            if outcome.forfeit_by is not None:
                acc[outcome.forfeit_by]["forfeits"] += 1
        return {n: BotTotals(n, int(r["games"]), float(r["wins"]), int(r["points"]), int(r["faults"]),
                             int(r["forfeits"])) for n, r in acc.items()}

    def summary(self) -> str:
        """One line per bot: games, wins, points, faults."""
        lines = [f"{self.game}: {len(self.outcomes)} games"]
        for t in sorted(self.totals().values(), key=lambda t: (-t.wins, -t.points, t.name)):
            lines.append(f"  {t.name}: {t.wins:g} wins of {t.games}, {t.points} points, {t.faults} faults, "
                         f"{t.forfeits} forfeits")
        return "\n".join(lines)


def play(
    game: str,
    bots: Sequence[str],
    *,
    games: int = 1,
    duplicate: bool = False,
    deck_sets: int | None = None,
    options: Mapping[str, Any] | None = None,
    seed: str = "arena",
    max_deals: int = MAX_DEALS,
    forfeit_after: int = FORFEIT_AFTER,
    decision_ms: int | None = None,
) -> ArenaResult:
    """Play ``games`` games of ``game`` between ``bots`` in this process; return every outcome and record.

    With ``duplicate``, each deck set is played once per rotation of the bots
    through the sides, and ``games`` is rounded up to whole deck sets, as a
    tournament file's ``games`` is (``deck_sets`` gives their number instead).
    ``options`` are the table
    options (games.md); ``seed`` fixes the decks (deck set ``k`` uses
    ``f"{seed}/{k}"``) and the bots' own seeds, so the same call plays the same
    games. A game past ``max_deals`` deals is adjudicated to the side(s) ahead.

    Raises:
        BotSpecError: a bot spec that names no bot (checked before the first game).
        OptionsError: bad options for the game.
        ValueError: a bot count that is neither the number of sides nor the number of seats, or ``games`` or
            ``deck_sets`` < 1.
    """
    from tricktable.bots import bot_factory

    if games < 1 or (deck_sets is not None and deck_sets < 1):
        raise ValueError(f"games and deck_sets must be at least 1, not {games} and {deck_sets}")
    config = game_rules(game).config(dict(options or {}))
    sides, players = config.sides, config.players
    names = entrant_names(bots)
    for spec in dict.fromkeys(bots):
        bot_factory(spec)
    if len(bots) == len(sides):
        by_seat = [next(k for k, members in enumerate(sides) if s in members) for s in range(players)]
    elif len(bots) == players:
        by_seat = list(range(players))
    else:
        raise ValueError(f"{game} with these options has {len(sides)} sides and {players} seats; "
                         f"give a bot per side or per seat, not {len(bots)}")
    entrants = {n: EntrantSpec(name=n, bot=spec) for n, spec in zip(names, bots, strict=True)}
    runner = LocalRunner(forfeit_after=forfeit_after, decision_ms=decision_ms, max_deals=max_deals)
    rotations = len(bots) if duplicate else 1
    outcomes: list[MatchOutcome] = []
    seatings: list[tuple[str, ...]] = []
    for deck_set in range(deck_sets_for(games, deck_sets, rotations)):
        for turn in range(rotations):
            seats = tuple(names[(by_seat[s] + turn) % len(bots)] for s in range(players))
            match = MatchSpec(match_id=f"d{deck_set}-r{turn}", round=0, deck_set=deck_set, group=0, arrangement=turn,
                             seed=f"{seed}/{deck_set}", game=game, options=dict(options or {}), seats=seats,
                             sides=sides)
            outcomes.append(runner.run(match, entrants))
            seatings.append(seats)
    return ArenaResult(game=game, names=tuple(names), outcomes=tuple(outcomes), seatings=tuple(seatings))
