"""The learned bot as an SDK bot: the network's masked argmax at every decision, six picks for a discard."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tricktable.bots.learned.features import features
from tricktable.bots.learned.network import WEIGHTS, Network, load
from tricktable.envs.encoding import DISCARD_SIZE, decode, is_discard
from tricktable.rules.actions import Action, Discard
from tricktable.rules.cards import Card
from tricktable.rules.game import SeatView


class LearnedBot:
    """Plays the learned network (see :mod:`tricktable.bots.learned`); deterministic: it has no generator.

    Args:
        weights: the network's ``.npz`` file (the one shipped with the package by default).
    """

    name = "learned"

    def __init__(self, weights: Path = WEIGHTS) -> None:
        self.network: Network = load(weights)

    def _pick(self, view: SeatView, picked: list[Card]) -> Action | Card:
        x, mask = features(view, picked)
        return decode(self.network.choose(np.asarray(x, dtype=np.float32), np.asarray(mask, dtype=np.bool_)))

    def choose_action(self, view: SeatView) -> Action:
        """The network's choice; a Cinq Cents discard is its six picks, one card at a time.

        Raises:
            ValueError: the view has no legal action, or is of a game the network does not know.
        """
        legal = view.legal_actions
        if not legal:
            raise ValueError("no legal action")
        if len(legal) == 1:
            return legal[0]
        if is_discard(view):
            picked: list[Card] = []
            while len(picked) < DISCARD_SIZE:
                card = self._pick(view, picked)
                if not isinstance(card, Card):  # the mask allows only the hand's unpicked cards
                    raise ValueError(f"the network chose {card} while picking a discard")
                picked.append(card)
            return Discard(cards=tuple(c for c in view.hand if c in picked))  # the rules' order: the hand's
        choice = self._pick(view, [])
        if isinstance(choice, Card):  # the mask allows no pick outside a discard
            raise ValueError(f"the network picked {choice} outside a discard")
        return choice
