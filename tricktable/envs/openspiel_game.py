"""The four games as OpenSpiel games, so OpenSpiel's algorithms (ISMCTS, MCTS, CFR-family samplers) run on them.

``import tricktable.envs.openspiel_game`` registers ``tricktable_twenty_five``,
``tricktable_forty_five``, ``tricktable_all_fives`` and ``tricktable_cinq_cents`` with
``pyspiel``; then ``pyspiel.load_game("tricktable_forty_five", {"players": 5, "jink": True})``.
The rules engine is the table (:func:`tricktable.rules.registry.game_rules`), so every layout
and option it supports is a game parameter (docs/training.md, "OpenSpiel").

- **Chance.** The deck of each deal is dealt card by card, top first: a chance node per card,
  each remaining card equally likely (the deck's last card follows), as OpenSpiel's own card
  games deal. Why card by card: the chance tree is then the true uniform shuffle with at most
  54 outcomes a node, which OpenSpiel's samplers (MCTS, outcome and external sampling MCCFR,
  ISMCTS) expect; one node for a whole shuffle would need 52! outcomes. A first dealer left
  unset (``first_dealer=-1``) is a chance node too.
- **Actions** are the indices of :data:`tricktable.envs.encoding.ACTIONS`, the same catalog as
  the PettingZoo environment's: a Cinq Cents discard is six one-card picks by the declarer.
- **Returns** (:mod:`tricktable.envs.rewards`): with ``whole_game=false`` (the default) an episode
  is one scored deal (a void deal is dealt again) and each seat gets its deal reward; with
  ``whole_game=true`` the episode is the whole match, +1 for a winning side's seats, -1 for the
  others, 0 for all when it reaches :data:`~tricktable.rules.match.MAX_DEALS` deals.
- **What a seat may know.** Strings and tensors are built from the seat's own
  :class:`~tricktable.rules.game.SeatView` only (docs/games.md, "What each player may know"):
  the observation tensor is :func:`tricktable.envs.encoding.encode`, the observation string
  the current deal as the seat sees it, the information state string adds the seat's view of
  every earlier deal (perfect recall). Another seat's discard picks in progress are not shown.
- **Resampling.** ``resample_from_infostate`` draws a whole deal consistent with the seat's view
  (:class:`tricktable.rules.determinize.DealSampler`), which is what OpenSpiel's ISMCTS asks.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found,unused-ignore]

from tricktable.envs.encoding import (
    ACTION_COUNT,
    ACTIONS,
    CARD_COUNT,
    CARDS,
    DISCARD_SIZE,
    MAX_SEATS,
    OBSERVATION_SIZE,
    PICK,
    action_index,
    decode,
    encode,
)
from tricktable.envs.rewards import deal_rewards, game_rewards, target_of
from tricktable.rules.actions import Action, Discard, Run
from tricktable.rules.all_fives import COUNTING_VALUES
from tricktable.rules.cards import Card
from tricktable.rules.cinq_cents import POINTS_PER_TRICK
from tricktable.rules.cinq_cents import TRICKS_PER_DEAL as CINQ_CENTS_TRICKS
from tricktable.rules.determinize import DealSampler
from tricktable.rules.errors import OptionsError
from tricktable.rules.events import ActionEvent
from tricktable.rules.frozen import evolve
from tricktable.rules.game import GameConfig, Seat, SeatView
from tricktable.rules.match import MAX_DEALS, Match
from tricktable.rules.notation import notation
from tricktable.rules.registry import game_definition, games
from tricktable.rules.spoil_five import TRICKS_PER_DEAL as SPOIL_FIVE_TRICKS
from tricktable.rules.spoil_five_config import DealPattern

#: OpenSpiel names: ``tricktable_<game>``.
PREFIX = "tricktable_"
#: The parameter that makes the episode the whole match instead of one scored deal.
WHOLE_GAME = "whole_game"
#: An int parameter of this value (every int's default) leaves the option to the engine's default, which may
#: depend on the others (``sides`` on ``players``); ``first_dealer`` left so is drawn by a chance node.
DEFAULT = -1
#: Worlds drawn for one ``resample_from_infostate`` before giving up (a draw fails rarely: a rule the sampler
#: does not model).
RESAMPLE_TRIES = 200
#: Decisions a deal can take beyond its cards played (robs, jinks, begs, bids, picks), per seat: a bound
#: for ``max_game_length``. A Cinq Cents auction is the longest: each bid raises one of 25 contracts.
DECISIONS_PER_SEAT = 30
#: Points a Spoil Five trick is worth (docs/games.md 1.6, 1.7); Forty-Five's highest-trump bonus is one more.
SPOIL_FIVE_TRICK_POINTS = 5


def _forty_five_swing(options: Mapping[str, Any]) -> int:
    """Five tricks and the bonus; a jink made scores double."""
    deal = (SPOIL_FIVE_TRICKS + 1) * SPOIL_FIVE_TRICK_POINTS
    return 2 * deal if options.get("jink") else deal


def _cinq_cents_swing(options: Mapping[str, Any]) -> int:
    """The dearest contract failed, and the other side's ten tricks."""
    table: Mapping[str, Mapping[str, int]] = options["bid_values"]
    return max(v for row in table.values() for v in row.values()) + CINQ_CENTS_TRICKS * POINTS_PER_TRICK


#: The most one deal can move a side ahead of the best other side (docs/games.md, each game's scoring): the
#: bound of a deal's reward once divided by the target.
DEAL_SWING: dict[str, Callable[[Mapping[str, Any]], int]] = {
    "twenty_five": lambda options: SPOIL_FIVE_TRICKS * SPOIL_FIVE_TRICK_POINTS,
    "forty_five": _forty_five_swing,
    "all_fives": lambda options: sum(COUNTING_VALUES.values()) + 1,  # every counting trump, and a gift
    "cinq_cents": _cinq_cents_swing,
}


# --- parameters ---------------------------------------------------------------------


def parameter_defaults(game: str) -> dict[str, Any]:
    """The game's OpenSpiel parameters and their defaults: every engine option, typed as OpenSpiel types them.

    An int is :data:`DEFAULT` (the engine's default); a bool is the game's default; the deal
    pattern is its name (``three_two``, ``two_three``: OpenSpiel's game strings would read
    ``2-3`` as a number; the engine's ``"3-2"`` is taken too), empty for the default; a bid
    table is its JSON text, empty for the standard table.
    """
    definition = game_definition(game)
    resolved = definition.rules.config({}).to_options()
    out: dict[str, Any] = {}
    for spec in definition.options:
        if spec.kind == "bool":
            out[spec.name] = bool(resolved.get(spec.name))
        elif spec.kind == "int":
            out[spec.name] = DEFAULT
        else:
            out[spec.name] = ""
    out[WHOLE_GAME] = False
    return out


def engine_options(game: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """OpenSpiel parameters as the engine's options (the inverse of :func:`parameter_defaults`).

    Raises:
        OptionsError: an unknown parameter, or a bid table that is not JSON.
    """
    definition = game_definition(game)
    kinds = definition.option_kinds()
    unknown = sorted(set(params) - set(kinds) - {WHOLE_GAME})
    if unknown:
        raise OptionsError(f"{game}: unknown parameter(s) {', '.join(unknown)} (parameters: "
                           f"{', '.join([*kinds, WHOLE_GAME])})")
    options: dict[str, Any] = {}
    for name, kind in kinds.items():
        if name not in params:
            continue
        value = params[name]
        if (kind == "int" and value == DEFAULT) or (kind in ("bid_values", "deal_pattern") and value == ""):
            continue
        if kind == "bid_values":
            try:
                options[name] = json.loads(value)
            except json.JSONDecodeError as exc:
                raise OptionsError(f"{game}: bid_values must be a JSON object: {exc}") from None
        elif kind == "deal_pattern":
            named = DealPattern.__members__.get(str(value).upper())
            options[name] = named.value if named is not None else value
        else:
            options[name] = value
    return options


def _player_counts(game: str) -> list[int]:
    """The player counts the engine accepts for ``game`` (asked of its own option check)."""
    rules = game_definition(game).rules
    counts = []
    for players in range(2, MAX_SEATS + 1):
        try:
            rules.config({"players": players})
        except OptionsError:
            continue
        counts.append(players)
    return counts


# --- the game -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Decks:
    """The decks dealt so far by chance; a deal past them gets the unshuffled deck until chance deals its own."""

    decks: tuple[tuple[Card, ...], ...]

    def deck(self, index: int, cards: Sequence[Card]) -> tuple[Card, ...]:
        return self.decks[index] if index < len(self.decks) else tuple(cards)


@dataclass(frozen=True, slots=True, kw_only=True)
class Progress:
    """Everything a state holds, immutable, so OpenSpiel's clone (a deep copy) shares it instead of copying it.

    ``match`` is None until the first deck is dealt. ``pending`` is the action that ended a deal,
    with the match before it: once chance has dealt the next deck it is applied again, so the
    engine deals the new deal from that deck.
    """

    match: Match | None = None
    first_dealer: Seat | None = None
    decks: tuple[tuple[Card, ...], ...] = ()
    dealing: tuple[Card, ...] = ()
    #: The cards of ``dealing`` as bits of their indices (a chance node asks what is left).
    dealt_mask: int = 0
    pending: tuple[Match, Seat, Action] | None = None
    picked: tuple[Card, ...] = ()
    #: The declarer's hand while it picks its discard (listing the 8,008 discards once per discard is enough).
    discard_hand: tuple[Card, ...] = ()
    #: Where in the history the current deal's first card was dealt (what a resample deals again).
    deal_start: int = 0
    terminal: bool = False

    def __deepcopy__(self, memo: dict[int, Any]) -> Progress:
        return self

    @property
    def deciding(self) -> Match | None:
        """The match when a seat is to decide (not dealing, not over)."""
        if self.terminal or self.pending is not None:
            return None
        return self.match


class TricktableGame(pyspiel.Game):  # type: ignore[misc]
    """One of the four games with its parameters; see the module docstring."""

    def __init__(self, game: str, params: Mapping[str, Any] | None = None) -> None:
        self.game = game
        params = dict(params or {})
        self.params = params
        self.whole_game = bool(params.get(WHOLE_GAME, False))
        self.options = engine_options(game, params)
        self.rules = game_definition(game).rules
        self.config: GameConfig = self.rules.config(self.options)
        resolved = self.config.to_options()
        #: The unshuffled deck: what chance deals from.
        self.deck: tuple[Card, ...] = tuple(self.config.deck())
        self.deck_size = len(self.deck)
        self.deck_indices: tuple[int, ...] = tuple(sorted(c.index for c in self.deck))
        players = self.config.players
        sides = self.config.sides
        per_deal = self.deck_size + DISCARD_SIZE + players * DECISIONS_PER_SEAT
        if self.whole_game:
            bound = 1.0
            zero_sum = False  # ties share a win (All Fives), several sides may lose
        else:
            bound = DEAL_SWING[game](resolved) / target_of(self.config)
            zero_sum = len(sides) == 2 and len(sides[0]) == len(sides[1])
        info = pyspiel.GameInfo(
            num_distinct_actions=ACTION_COUNT, max_chance_outcomes=CARD_COUNT, num_players=players,
            min_utility=-bound, max_utility=bound, utility_sum=0.0 if zero_sum else None,
            max_game_length=MAX_DEALS * per_deal)
        super().__init__(game_type(game, zero_sum=zero_sum), info, params)

    def __deepcopy__(self, memo: dict[int, Any]) -> TricktableGame:
        """The game itself: it never changes, and OpenSpiel deep-copies a state's attributes to clone it."""
        return self

    def __reduce__(self) -> tuple[Callable[..., Any], tuple[str, dict[str, Any]]]:
        """Pickled as its name and parameters (OpenSpiel serializes a state by pickling its attributes)."""
        return load_params, (self.game, self.params)

    def new_initial_state(self) -> TricktableState:
        """A match about to be dealt."""
        return TricktableState(self)

    def max_chance_nodes_in_history(self) -> int:
        """The first dealer, and every card of every deal but the last of each deck."""
        return 1 + MAX_DEALS * (self.deck_size - 1)

    def make_py_observer(self, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None) -> SeatObserver:
        """What a seat sees: its information state (perfect recall) or its observation (this deal)."""
        return SeatObserver(iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


def game_type(game: str, *, zero_sum: bool = False) -> Any:
    """The OpenSpiel game type of ``game`` (zero-sum for one deal between two equal sides)."""
    counts = _player_counts(game)
    utility = pyspiel.GameType.Utility.ZERO_SUM if zero_sum else pyspiel.GameType.Utility.GENERAL_SUM
    return pyspiel.GameType(
        short_name=PREFIX + game,
        long_name=f"Tricktable {game.replace('_', ' ').title()}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(counts),
        min_num_players=min(counts),
        provides_information_state_string=True,
        provides_information_state_tensor=False,  # the fixed-size encoding is this deal's, not perfect recall
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_defaults(game),
    )


class TricktableState(pyspiel.State):  # type: ignore[misc]
    """A match in progress: chance deals each deck, the seats act through the rules engine."""

    def __init__(self, game: TricktableGame) -> None:
        super().__init__(game)
        self.tt_game = game
        first = game.config.first_dealer
        self.progress = Progress(first_dealer=first)
        self.legal: tuple[int, ...] | None = None

    # --- OpenSpiel's state API ---------------------------------------------------

    def current_player(self) -> int:
        p = self.progress
        if p.terminal:
            return int(pyspiel.PlayerId.TERMINAL)
        match = p.deciding
        if match is None or p.first_dealer is None:
            return int(pyspiel.PlayerId.CHANCE)
        seat = match.to_act
        return int(pyspiel.PlayerId.TERMINAL) if seat is None else seat

    def _legal_actions(self, player: int) -> list[int]:
        if self.legal is None:
            self.legal = self._legal_now()
        return list(self.legal)

    def _legal_now(self) -> tuple[int, ...]:
        match = self.progress.deciding
        if match is None:
            return ()
        p = self.progress
        if p.picked:
            return tuple(c.index + _PICK_OFFSET for c in p.discard_hand if c not in p.picked)
        legal = match.legal_actions()
        if legal and isinstance(legal[0], Discard):
            return tuple(sorted({c.index + _PICK_OFFSET for d in legal if isinstance(d, Discard) for c in d.cards}))
        return tuple(sorted(action_id(a) for a in legal))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = self.progress
        if p.first_dealer is None:
            players = self.tt_game.config.players
            return [(s, 1.0 / players) for s in range(players)]
        mask = p.dealt_mask
        left = [i for i in self.tt_game.deck_indices if not mask >> i & 1]
        share = 1.0 / len(left)
        return [(i, share) for i in left]

    def _apply_action(self, action: int) -> None:
        p = self.progress
        if p.terminal:
            raise ValueError("the game is over: no action applies")
        if p.first_dealer is None:
            self._draw_first_dealer(action)
        elif p.deciding is None:
            self._deal_card(action)
        else:
            self._decide(p.deciding, action)
        self.legal = None

    def _draw_first_dealer(self, seat: int) -> None:
        if not 0 <= seat < self.tt_game.config.players:
            raise ValueError(f"no seat {seat} to deal first")
        self.progress = evolve(self.progress, first_dealer=seat, deal_start=len(self.history()) + 1)

    def _deal_card(self, index: int) -> None:
        p = self.progress
        game = self.tt_game
        if index not in game.deck_indices or p.dealt_mask >> index & 1:
            raise ValueError(f"card {index} is not in what is left of the deck")
        dealing = (*p.dealing, CARDS[index])
        mask = p.dealt_mask | 1 << index
        if len(dealing) == game.deck_size - 1:  # the last card is the one left
            dealing = (*dealing, next(CARDS[i] for i in game.deck_indices if not mask >> i & 1))
        if len(dealing) < game.deck_size:
            self.progress = evolve(p, dealing=dealing, dealt_mask=mask)
            return
        decks = (*p.decks, dealing)
        if p.pending is None:
            options = {**game.options, "first_dealer": p.first_dealer}
            match = Match.start(game.rules, options, _Decks(decks))
        else:
            before, seat, action = p.pending
            match = evolve(before, decks=_Decks(decks)).apply(action, seat)
        self.progress = evolve(p, match=match, decks=decks, dealing=(), dealt_mask=0, pending=None)

    def _decide(self, match: Match, index: int) -> None:
        if index not in self._legal_actions(match.to_act or 0):
            raise ValueError(f"action {index} ({ACTIONS[index] if 0 <= index < ACTION_COUNT else '?'}) is not "
                             f"legal for seat {match.to_act} now")
        seat = match.to_act
        assert seat is not None
        choice = _DECODED[index]
        p = self.progress
        if isinstance(choice, Card):
            picked = (*p.picked, choice)
            if len(picked) < DISCARD_SIZE:
                hand = p.discard_hand if p.picked else tuple(CARDS[i - _PICK_OFFSET] for i in self.legal or ())
                self.progress = evolve(p, picked=picked, discard_hand=hand)
                return
            chosen: Action = Discard(cards=picked)
        else:
            chosen = choice
        after = match.apply(chosen, seat)
        p = evolve(p, match=after, picked=(), discard_hand=())
        ended = len(after.finished) > len(match.finished)
        one_deal_scored = ended and not self.tt_game.whole_game and not after.finished[-1][0].is_void
        if after.is_over or len(after.finished) >= MAX_DEALS or one_deal_scored:
            p = evolve(p, terminal=True)
        elif ended:
            p = evolve(p, pending=(match, seat, chosen), deal_start=len(self.history()) + 1)
        self.progress = p

    def is_terminal(self) -> bool:
        return self.progress.terminal

    def returns(self) -> list[float]:
        p = self.progress
        config = self.tt_game.config
        match = p.match
        if not p.terminal or match is None:
            return [0.0] * config.players
        if self.tt_game.whole_game:
            return game_rewards(config, match.result)
        before = match.finished[-1][1]
        return deal_rewards(config, before, match.scores_before)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self.progress.first_dealer is None:
                return f"first dealer {action}"
            return f"deal {CARDS[action].code}" if 0 <= action < CARD_COUNT else f"card {action}?"
        return ACTIONS[action] if 0 <= action < ACTION_COUNT else f"action {action}?"

    def __str__(self) -> str:
        """The whole truth (every hand), for debugging; a seat's strings are :class:`SeatObserver`'s."""
        p = self.progress
        match = p.deciding
        if match is None:
            return f"dealing: {len(p.dealing)} cards dealt" + (", game over" if p.terminal else "")
        hands = "; ".join(f"{s}: {' '.join(c.code for c in match.view(s).hand)}"
                          for s in range(match.config.players))
        return f"deal {match.deal.number}, scores {list(match.scores)}, to act {match.to_act}; hands {hands}"

    # --- what a seat may know -------------------------------------------------------

    def seat_view(self, player: int) -> SeatView | None:
        """``player``'s view at a decision point (None while dealing, or when the game is over)."""
        match = self.progress.deciding
        return None if match is None else match.view(player)

    def seat_picked(self, player: int) -> tuple[Card, ...]:
        """The discard picks in progress, shown only to the declarer making them."""
        match = self.progress.deciding
        return self.progress.picked if match is not None and match.to_act == player else ()

    def earlier_deals(self, player: int) -> list[SeatView]:
        """``player``'s view of every deal already over, in order (what perfect recall adds)."""
        match = self.progress.match
        if match is None:
            return []
        return [deal.view(player, before) for deal, before in match.finished]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> TricktableState:
        """A state ``player_id`` cannot tell from this one, its hidden cards drawn anew (OpenSpiel's ISMCTS).

        At a decision point: a world of :class:`DealSampler` (the other hands, buried card,
        discards and stock consistent with everything the seat has seen), replayed from this
        deal's first card; earlier deals are kept, as nothing hidden in them matters any more.
        While dealing, the cards dealt so far are dealt again at random.

        Raises:
            ValueError: ``player_id`` is not the seat to act (the sampler replays the deal up to its decision).
            RuntimeError: no consistent world was found in :data:`RESAMPLE_TRIES` draws.
        """
        rng = random.Random(int(float(probability_sampler()) * 2**53))
        p = self.progress
        if p.terminal:
            return self.clone()  # type: ignore[no-any-return]
        history = self.history()
        match = p.deciding
        if match is None:
            state = self._replayed(history[:p.deal_start])
            for _ in range(len(history) - p.deal_start):
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            return state
        if player_id != match.to_act:
            raise ValueError(f"worlds are drawn for the seat to act ({match.to_act}), not for seat {player_id}")
        sampler = DealSampler(match.view(player_id))
        for _ in range(RESAMPLE_TRIES):
            world = sampler.draw(rng)
            if world is None or sampler.replay(world) is None:
                continue
            state = self._replayed(history[:p.deal_start])
            for card in world.deck[:-1]:
                state.apply_action(card.index)
            for _seat, action in world.actions:
                for index in action_ids(action):
                    state.apply_action(index)
            for card in self.seat_picked(player_id):
                state.apply_action(card.index + _PICK_OFFSET)
            return state
        raise RuntimeError(f"no deal consistent with seat {player_id}'s view in {RESAMPLE_TRIES} draws")

    def _replayed(self, actions: Sequence[int]) -> TricktableState:
        state = self.tt_game.new_initial_state()
        for index in actions:
            state.apply_action(index)
        return state


#: Where the discard picks start in the catalog: a pick's index is this plus its card's index.
_PICK_OFFSET = ACTIONS.index(f"{PICK}-{CARDS[0].code}")
#: Every catalog index decoded once (actions are immutable), and the index of each action: a step looks them up.
_DECODED: tuple[Action | Card, ...] = tuple(decode(i) for i in range(ACTION_COUNT))
_INDEX_OF: dict[Action, int] = {a: i for i, a in enumerate(_DECODED) if not isinstance(a, Card)}


def action_id(action: Action) -> int:
    """The catalog index of a decision (a run of the pack, whose turned cards the engine fills in, as ``run``)."""
    found = _INDEX_OF.get(action)
    if found is not None:
        return found
    return action_index(Run() if isinstance(action, Run) else action)


def action_ids(action: Action) -> list[int]:
    """The catalog indices that take ``action``: a discard is its six picks (cards in the engine's order)."""
    if isinstance(action, Discard):
        return [c.index + _PICK_OFFSET for c in sorted(action.cards, key=lambda c: c.index)]
    return [action_id(action)]


# --- observations -------------------------------------------------------------------


class SeatObserver:
    """OpenSpiel's observer for one seat's own view; no other kind of observation is offered.

    Why only the seat's own: the games' point is what a seat may not see, so an observer of
    every hand, or of the public part alone, is refused rather than made up.
    """

    def __init__(self, iig_obs_type: Any, params: Mapping[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {dict(params)}")
        if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER or not iig_obs_type.public_info:
            raise ValueError("only a seat's own view is observable (public and its own private information)")
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.tensor: np.ndarray[Any, Any] | None = None
        self.dict: dict[str, np.ndarray[Any, Any]] = {}
        if not self.perfect_recall:
            self.tensor = np.zeros(OBSERVATION_SIZE, np.float32)
            self.dict = {"observation": self.tensor}

    def set_from(self, state: TricktableState, player: int) -> None:
        """The seat's encoded view (:func:`tricktable.envs.encoding.encode`); zeros while dealing."""
        if self.tensor is None:
            return
        view = state.seat_view(player)
        if view is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = encode(view, state.seat_picked(player))

    def string_from(self, state: TricktableState, player: int) -> str:
        """The seat's view as text: this deal, and with perfect recall every earlier deal first."""
        parts = [f"seat {player}"]
        if self.perfect_recall:
            parts.extend(view_text(v) for v in state.earlier_deals(player))
        view = state.seat_view(player)
        parts.append("dealing" if view is None else view_text(view, state.seat_picked(player)))
        return "\n".join(parts)


def _cards(cards: Sequence[Card]) -> str:
    return " ".join(c.code for c in cards) or "-"


def _event_text(event: ActionEvent) -> str:
    action = event.action
    return f"{event.seat}:{event.action_type if action is None else notation(action)}"


def view_text(view: SeatView, picked: Sequence[Card] = ()) -> str:
    """A seat's view of one deal as one line per part, from the view's fields alone (nothing it may not see)."""
    lines = [f"deal {view.deal_number} dealer {view.dealer} scores {' '.join(map(str, view.scores))} "
             f"deal_points {' '.join(map(str, view.deal_points))}",
             f"hand {_cards(view.hand)}"]
    if view.turn_up is not None:
        lines.append(f"turn_up {view.turn_up.code}")
    if len(view.exposed) > 1:
        lines.append(f"exposed {_cards(view.exposed)}")
    if view.trump is not None or view.no_trump:
        lines.append(f"trump {'NT' if view.no_trump else view.trump.value if view.trump else ''}")
    if view.buried is not None:
        lines.append(f"buried {view.buried.code}")
    if view.contract is not None:
        lines.append(f"contract {view.contract.seat}:{view.contract.tricks}-{view.contract.denomination.value}")
    if view.kitty:
        lines.append(f"kitty {_cards(view.kitty)}")
    if view.discards:
        lines.append(f"discards {_cards(view.discards)}")
    lines.append("history " + (" ".join(_event_text(e) for e in view.history) or "-"))
    if picked:
        lines.append(f"picked {_cards(picked)}")
    if view.to_act is not None:
        lines.append(f"to_act {view.to_act}")
    return "\n".join(lines)


# --- registration -------------------------------------------------------------------


def _game_class(game: str) -> type[TricktableGame]:
    """A class of its own per game, as OpenSpiel registers a game's class (it calls it with the parameters)."""

    def __init__(self: TricktableGame, params: Mapping[str, Any] | None = None) -> None:
        TricktableGame.__init__(self, game, params)

    name = "".join(part.title() for part in game.split("_")) + "Game"
    return type(name, (TricktableGame,), {"__init__": __init__, "__doc__": f"{game} as an OpenSpiel game."})


#: The class registered for each game (kept here: OpenSpiel holds them until the interpreter exits).
GAME_CLASSES: dict[str, type[TricktableGame]] = {name: _game_class(name) for name in games()}


def _register() -> None:
    registered = set(pyspiel.registered_names())
    for name, cls in GAME_CLASSES.items():
        if PREFIX + name not in registered:
            pyspiel.register_game(game_type(name), cls)


_register()


def load(game: str, **params: Any) -> Any:
    """``pyspiel.load_game("tricktable_<game>", params)``: a shorthand."""
    return load_params(game, params)


def load_params(game: str, params: Mapping[str, Any]) -> Any:
    """``pyspiel.load_game("tricktable_<game>", params)``."""
    return pyspiel.load_game(PREFIX + game, dict(params))


__all__ = ["DEAL_SWING", "DEFAULT", "GAME_CLASSES", "PREFIX", "WHOLE_GAME", "Progress", "SeatObserver",
           "TricktableGame", "TricktableState", "action_id", "action_ids", "engine_options", "game_type", "load",
           "load_params", "parameter_defaults", "view_text"]
