"""A match: deals in sequence until a game's end rule says it is over.

The match is game-agnostic. It owns what docs/games.md's common rules say: the
first dealer (option or drawn from the seed), the deal passing left, a void
deal redealt by the same dealer, running scores per side, and the record.
The game module owns everything inside a deal and the end condition.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from tricktable.rules.actions import Action
from tricktable.rules.errors import ErrorCode, RuleError
from tricktable.rules.events import DealStarted, Event
from tricktable.rules.frozen import evolve
from tricktable.rules.game import DealState, GameConfig, GameRules, Result, Seat, SeatView
from tricktable.rules.shuffle import DeckSource, draw_first_dealer

RECORD_FORMAT = "tricktable-record/1"

#: Deals after which a game is stopped without a result, wherever it is played (server tables, selfplay, the
#: ladder, tournaments): uniformly random Cinq Cents never ends, as random contracts mostly fail and docs/games.md 3.6
#: puts no floor under the scores (measured: -940,000 after 4,444 deals).
MAX_DEALS = 200


@dataclass(frozen=True, slots=True, kw_only=True)
class Match:
    """An immutable match state. Build it with :meth:`start`; ``apply`` returns a new one.

    ``events`` are what the step that made this state caused (:mod:`tricktable.rules.events`):
    ``match = match.apply(action)`` gives the next state and, in ``match.events``,
    the events of that action, whole truth; ``event.seen_by(seat)`` is what one
    audience may know of each.
    """

    rules: GameRules
    config: GameConfig
    decks: DeckSource
    first_dealer: Seat
    #: Finished deals, each with the side totals before it.
    finished: tuple[tuple[DealState, tuple[int, ...]], ...]
    deal: DealState
    #: Side totals before the current deal.
    scores_before: tuple[int, ...]
    result: Result | None = None
    #: The events of the step that made this state: the first deal dealt for :meth:`start`.
    events: tuple[Event, ...] = ()
    #: Every seat's view of a deal just dealt (its :class:`DealStarted` was made from them), in seat order, which
    #: :meth:`view` returns; empty in any other state. Why kept: a server table sends each seat its view at once
    #: (the joins, the first decision), and building it again costs as much as the first time.
    dealt_views: tuple[SeatView, ...] = field(default=(), compare=False, repr=False)

    @classmethod
    def start(
        cls,
        rules: GameRules,
        options: Mapping[str, Any],
        decks: DeckSource,
        *,
        seed: str | None = None,
    ) -> Match:
        """Validate ``options`` and deal the first deal.

        The first dealer is the ``first_dealer`` option, or drawn from ``seed``
        when unset; the config then holds the seat drawn, so views and the
        record show the same resolved options.

        Raises:
            OptionsError: for bad options, or no first dealer and no seed to draw one.
        """
        config = rules.config(options)
        first = config.first_dealer
        if first is None:
            if seed is None:
                from tricktable.rules.errors import OptionsError

                raise OptionsError(f"{rules.name}: first_dealer is unset and there is no seed to draw it")
            first = draw_first_dealer(seed, config.players)
            # The drawn dealer is part of the resolved options, as the record writes them: every view shows it.
            config = rules.config({**config.to_options(), "first_dealer": first})
        zero = tuple(0 for _ in config.sides)
        deal = rules.start_deal(
            config, number=1, dealer=first, deck=decks.deck(0, config.deck()), scores=zero,
            redeal=False,
        )
        views = _views(deal, zero, config.players)
        return cls(rules=rules, config=config, decks=decks, first_dealer=first, finished=(),
                   deal=deal, scores_before=zero, events=_dealt(deal, views, redeal=False), dealt_views=views)

    # --- state -----------------------------------------------------------

    @property
    def is_over(self) -> bool:
        """True once the match has a result (finished or aborted)."""
        return self.result is not None

    @property
    def final_result(self) -> Result:
        """The result of a match that is over (finished or aborted).

        Raises:
            ValueError: the match is still being played (:attr:`result` is None until it ends).
        """
        if self.result is None:
            raise ValueError("the match is still being played: it has no result yet")
        return self.result

    @property
    def to_act(self) -> Seat | None:
        """The seat that must act, or None when the match is over."""
        return None if self.result is not None else self.deal.to_act

    @property
    def scores(self) -> tuple[int, ...]:
        """Running side totals, including what the current deal has scored so far."""
        if self.result is not None:
            return self.result.scores
        return tuple(a + b for a, b in zip(self.scores_before, self.deal.points, strict=True))

    def legal_actions(self) -> list[Action]:
        """The sorted legal actions of the seat to act; empty once the match is over."""
        return [] if self.result is not None else self.deal.legal_actions()

    def check(self, action: Action, seat: Seat | None = None) -> None:
        """Raise :class:`RuleError` unless ``seat`` (default: the seat to act) may take ``action``."""
        if self.result is not None:
            raise RuleError(ErrorCode.GAME_OVER, "the game is over")
        self.deal.check(action, seat)

    def apply(self, action: Action, seat: Seat | None = None) -> Match:
        """Check ``action`` and return the match after it (the next deal dealt when one ends).

        Raises:
            RuleError: the action is refused; this match is unchanged.
        """
        if self.result is not None:
            raise RuleError(ErrorCode.GAME_OVER, "the game is over")
        deal = self.deal.apply(action, seat)  # checks first, as :meth:`check` does: one check per action
        caused = deal.events[len(self.deal.events):]
        if not deal.is_over:
            return evolve(self, deal=deal, events=caused, dealt_views=())
        return self._after_deal(deal, caused)

    def _after_deal(self, deal: DealState, caused: tuple[Event, ...]) -> Match:
        scores = tuple(a + b for a, b in zip(self.scores_before, deal.points, strict=True))
        finished = (*self.finished, (deal, self.scores_before))
        result = None if deal.is_void else self.rules.match_result(self.config, deal, scores)
        if result is not None:
            return evolve(self, deal=deal, finished=finished, scores_before=scores, result=result, events=caused,
                          dealt_views=())
        dealer = deal.dealer if deal.is_void else (deal.dealer + 1) % self.config.players
        index = len(finished)
        nxt = self.rules.start_deal(
            self.config, number=index + 1, dealer=dealer,
            deck=self.decks.deck(index, self.config.deck()), scores=scores, redeal=deal.is_void,
        )
        views = _views(nxt, scores, self.config.players)
        return evolve(self, deal=nxt, finished=finished, scores_before=scores,
                      events=(*caused, *_dealt(nxt, views, redeal=deal.is_void)), dealt_views=views)

    def abort(self, reason: str) -> Match:
        """End the match as aborted: no winners, the scores as the rules had scored them."""
        if self.result is not None:
            return self
        return replace(self, result=Result(status="aborted", winners=(), scores=self.scores,
                                           reason=reason), events=(), dealt_views=())

    def view(self, seat: Seat) -> SeatView:
        """What ``seat`` may know now (docs/games.md, "What each player may know")."""
        if not 0 <= seat < self.config.players:
            raise ValueError(f"no seat {seat} at a {self.config.players}-player table")
        if self.dealt_views:  # a deal just dealt (never over: the match has no result then)
            return self.dealt_views[seat]
        base = self.deal.view(seat, self.scores_before)
        if self.result is None:
            return base
        return replace(base, to_act=None, legal_actions=(), result=self.result,
                       scores=self.result.scores)

    # --- record ----------------------------------------------------------

    def all_deals(self) -> list[tuple[DealState, tuple[int, ...]]]:
        """Every deal with the totals before it: finished ones, then the current one if unfinished."""
        deals = list(self.finished)
        if not any(d is self.deal for d, _ in deals):
            deals.append((self.deal, self.scores_before))
        return deals

    def to_record(
        self, *, seed: str | None = None, names: Sequence[str] | None = None
    ) -> dict[str, Any]:
        """The game record (docs/records.md, format 1). Deals of an unfinished match are written as they stand."""
        options = self.config.to_options()
        names = list(names) if names is not None else [f"seat-{s}" for s in range(self.config.players)]
        record: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "game": self.rules.name,
            "options": options,
            "seed": seed,
            "seats": [{"seat": s, "name": names[s]} for s in range(self.config.players)],
            "sides": [list(side) for side in self.config.sides],
            "deals": [d.to_record(before) for d, before in self.all_deals()],
        }
        if self.result is not None:
            record["result"] = {
                "status": self.result.status,
                "winners": list(self.result.winners),
                "scores": list(self.result.scores),
                "reason": self.result.reason,
            }
        return record



def _views(deal: DealState, scores: tuple[int, ...], players: int) -> tuple[SeatView, ...]:
    """Every seat's view of ``deal`` (just dealt, ``scores`` the totals before it), in seat order."""
    return tuple(deal.view(seat, scores) for seat in range(players))


def _dealt(deal: DealState, views: tuple[SeatView, ...], *, redeal: bool) -> tuple[Event, ...]:
    """A deal just dealt: :class:`DealStarted` (each hand as its seat's view sorts it), then the deal's own events."""
    public = views[0]
    started = DealStarted(number=deal.number, dealer=deal.dealer, redeal=redeal, turn_up=public.turn_up,
                          scores=public.scores, hand_sizes=public.hand_sizes,
                          hands={view.seat: view.hand for view in views})
    return (started, *deal.events)


def play_out(match: Match, choose: Callable[[Match, Seat], Action], *, max_deals: int = MAX_DEALS) -> Match:
    """The one in-process match loop: apply ``choose(match, seat)`` for the seat to act until the match is over.

    It stops early once ``max_deals`` deals, redeals included, have been
    played and returns that unfinished match: the caller aborts it
    (:meth:`Match.abort`) or adjudicates it. ``choose`` sees the whole match
    (a bot is asked with ``match.view(seat)``) and may raise to stop.

    Raises:
        RuleError: ``choose`` returned an action the rules refuse.
        RuntimeError: the match is not over but no seat is to act (an engine bug).
    """
    while not match.is_over and len(match.finished) < max_deals:
        seat = match.to_act
        if seat is None:
            raise RuntimeError("the match is not over but no seat is to act")
        match = match.apply(choose(match, seat), seat)
    return match
