"""The learned bot as an SDK bot: the heuristic's choice unless the network predicts a better action by a margin."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tricktable.bots import heuristic
from tricktable.bots.learned.features import SUGGESTION, decision_kind, features
from tricktable.bots.learned.labels import valued_actions
from tricktable.bots.learned.network import WEIGHTS, Network, load
from tricktable.envs.encoding import ACTION_COUNT, action_index, decode
from tricktable.rules.actions import Action
from tricktable.rules.cards import Card
from tricktable.rules.game import SeatView


class LearnedBot:
    """Plays the learned network (see :mod:`tricktable.bots.learned`); deterministic: it has no generator.

    Where the network was not trained to choose (a Cinq Cents discard:
    :func:`~tricktable.bots.learned.labels.valued_actions` is None), it plays the heuristic's choice;
    elsewhere the action with the highest predicted advantage over the heuristic's choice, the
    heuristic's own raised by the margin of the game and the kind of decision (``trust``).

    Args:
        weights: the network's ``.npz`` file (the one shipped with the package by default).
    """

    name = "learned"

    def __init__(self, weights: Path = WEIGHTS) -> None:
        self.network: Network = load(weights)

    def choose_action(self, view: SeatView) -> Action:
        """The network's choice among the actions it was trained to compare, else the heuristic's.

        Raises:
            ValueError: the view has no legal action, or is of a game the network does not know.
        """
        legal = view.legal_actions
        if not legal:
            raise ValueError("no legal action")
        if len(legal) == 1:
            return legal[0]
        allowed = valued_actions(view)
        if allowed is None:
            return heuristic.choose_action(view)
        x = np.asarray(features(view)[0], dtype=np.float32)
        mask = np.zeros(ACTION_COUNT, np.bool_)
        mask[[action_index(a) for a in allowed]] = True
        mask |= x[SUGGESTION] > 0  # the heuristic's choice, always allowed
        choice = decode(self.network.choose(x, mask, decision_kind(view)))
        if isinstance(choice, Card):  # the mask allows no pick outside a discard
            raise ValueError(f"the network picked {choice} outside a discard")
        return choice
