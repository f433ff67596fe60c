"""What the learned bot's network reads at a decision: the view's encoding, the game, the heuristic's choice.

One function builds the input for training and for play, so the two can never disagree. The view is
:func:`tricktable.envs.encoding.encode` (the learners' documented encoding); the game is a one-hot over
:data:`GAMES`; the heuristic's choice is a multi-hot over the action catalog (its action, or for a Cinq
Cents discard the cards of its discard not yet picked), so the network learns where departing from the
heuristic gains rather than the whole game from nothing. Standard library only.
"""

from __future__ import annotations

from collections.abc import Sequence

from tricktable.bots import heuristic
from tricktable.envs.encoding import (
    ACTION_COUNT,
    ACTIONS,
    OBSERVATION_SIZE,
    PICK,
    action_index,
    action_mask,
    encode,
    is_discard,
)
from tricktable.rules.actions import Bid, Discard, Jink, Pass, PassJink, PassRob, Play, Rob
from tricktable.rules.cards import Card
from tricktable.rules.game import SeatView

#: The games the network knows, in the order of its one-hot.
GAMES: tuple[str, ...] = ("twenty_five", "forty_five", "all_fives", "cinq_cents")
#: Numbers the network reads: the view's encoding, the game's one-hot and the heuristic's multi-hot.
INPUT_SIZE = OBSERVATION_SIZE + len(GAMES) + ACTION_COUNT
#: Where the input holds the heuristic's choice (its multi-hot over the action catalog, the input's last part).
SUGGESTION = slice(INPUT_SIZE - ACTION_COUNT, INPUT_SIZE)
#: The kinds of decision the bot's margin is set for (:func:`decision_kind`), in the order of its margin table.
KINDS: tuple[str, ...] = ("bid", "rob", "jink", "call", "opening_lead", "lead", "last_to_play",
                          "first_trick_follow", "follow")
_PICK_INDEX = {text.removeprefix(PICK + "-"): i for i, text in enumerate(ACTIONS) if text.startswith(PICK + "-")}


def suggestion(view: SeatView, picked: Sequence[Card] = ()) -> list[float]:
    """The heuristic's choice over the action catalog: 1 for its action (its discard's unpicked cards)."""
    out = [0.0] * ACTION_COUNT
    choice = heuristic.choose_action(view)
    if isinstance(choice, Discard):
        for card in choice.cards:
            if card not in picked:
                out[_PICK_INDEX[card.code]] = 1.0
    else:
        out[action_index(choice)] = 1.0
    return out


def features(view: SeatView, picked: Sequence[Card] = ()) -> tuple[list[float], list[int]]:
    """The network's input for ``view`` (a discard with ``picked`` chosen so far) and the action mask.

    Raises:
        ValueError: a game the network was not trained on.
    """
    if view.game not in GAMES:
        raise ValueError(f"the learned bot knows {', '.join(GAMES)}, not {view.game!r}")
    game = [0.0] * len(GAMES)
    game[GAMES.index(view.game)] = 1.0
    mask = action_mask(view, picked) if is_discard(view) else action_mask(view)
    return [*encode(view, picked), *game, *suggestion(view, picked)], mask


def is_bid(view: SeatView) -> bool:
    """Whether ``view`` is an auction decision (bids and a pass: Cinq Cents, the only game with an auction)."""
    return any(isinstance(a, Bid) for a in view.legal_actions) and any(isinstance(a, Pass) for a in view.legal_actions)


def decision_kind(view: SeatView) -> str:
    """Which of :data:`KINDS` the decision at ``view`` is: the one place a decision's kind is read from the view.

    Why kinds: what departing from the heuristic gains, and how surely the network sees it, differs
    between kinds of decision (a bid, a lead, a later follow), so the bot departs from the heuristic by
    a margin per game and kind. A card play is the deal's opening lead, another lead, the last card of
    a trick, another follow in the first trick, or a later follow; ``call`` is an All Fives stand, beg,
    gift or run.
    """
    legal = view.legal_actions
    if is_bid(view):
        return "bid"
    if any(isinstance(a, Rob | PassRob) for a in legal):
        return "rob"
    if any(isinstance(a, Jink | PassJink) for a in legal):
        return "jink"
    if not all(isinstance(a, Play) for a in legal):
        return "call"
    trick = view.current_trick
    if trick is None or not trick.cards:
        return "opening_lead" if not view.tricks else "lead"
    if len(trick.cards) == view.players - 1:
        return "last_to_play"
    return "first_trick_follow" if not view.tricks else "follow"
