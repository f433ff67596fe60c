"""The learned bot's network: one hidden layer, its forward pass in NumPy, its weights in one ``.npz`` file.

Why so small: a decision must cost well under a millisecond of CPU (the encoding in Python costs more
than the two matrix products), and the weights ship inside the package. The file holds ``w1``, ``b1``,
``w2``, ``b2`` (float32), ``trust`` (a margin per game and kind of decision, see :class:`Network`) and
``input_size``, ``games`` and ``kinds`` to check it fits the features it is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from tricktable.bots.learned.features import GAMES, INPUT_SIZE, KINDS, SUGGESTION
from tricktable.envs.encoding import ACTION_COUNT, OBSERVATION_SIZE

#: The weights that ship with the package (reproduced by ``python -m tricktable.bots.learned.train``).
WEIGHTS = Path(__file__).with_name("weights.npz")

Floats = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class Network:
    """``logits = relu(x @ w1 + b1) @ w2 + b2``: one score per catalog action.

    When it plays, the heuristic's choice gets ``trust[game, kind]`` more (a row per game of
    :data:`~tricktable.bots.learned.features.GAMES`, a column per kind of
    :data:`~tricktable.bots.learned.features.KINDS`): the network departs from the heuristic only
    where it prefers another action by that margin. Why: imitating a noisy teacher from few
    decisions, the network is surest where the teacher departs from the heuristic again and again,
    and the heuristic is the better guess where it is unsure; and the teacher's edge over the
    heuristic sits in some kinds of decision, where departing pays, and not in others.
    """

    w1: Floats
    b1: Floats
    w2: Floats
    b2: Floats
    trust: Floats

    def logits(self, x: Floats) -> Floats:
        """The scores of every catalog action for inputs ``x`` (one row per decision)."""
        hidden = np.maximum(x @ self.w1 + self.b1, 0.0)
        out: Floats = hidden @ self.w2 + self.b2
        return out

    def scores(self, x: Floats, margin: float, logits: Floats | None = None) -> Floats:
        """The logits with the heuristic's choice raised by ``margin``: what the bot maximises, for rows or one.

        ``logits``: :meth:`logits` of ``x`` already computed (trying many margins on the same rows).
        """
        out: Floats = (self.logits(x) if logits is None else logits) + margin * x[..., SUGGESTION]
        return out

    def margin(self, x: Floats, kind: str) -> float:
        """The margin of one decision's input ``x`` (its game's one-hot) and kind."""
        game = int(np.argmax(x[OBSERVATION_SIZE:OBSERVATION_SIZE + len(GAMES)]))
        return float(self.trust[game, KINDS.index(kind)])

    def choose(self, x: Floats, mask: npt.NDArray[np.bool_], kind: str) -> int:
        """The highest-scored action the mask allows, the heuristic's raised by the margin (the first of equals)."""
        return int(np.argmax(np.where(mask, self.scores(x, self.margin(x, kind)), -np.inf)))

    def save(self, path: Path) -> None:
        """Write the weights (compressed) with the input size, games and kinds they were trained for."""
        np.savez_compressed(path, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2, trust=self.trust,
                            input_size=np.array(INPUT_SIZE), games=np.array(GAMES), kinds=np.array(KINDS))


@lru_cache(maxsize=4)
def load(path: Path = WEIGHTS) -> Network:
    """The network in ``path``, read once per process.

    Raises:
        ValueError: the file's network was trained for other features, games or kinds than these.
        OSError: no such file.
    """
    with np.load(path) as data:
        kinds = tuple(str(k) for k in data["kinds"]) if "kinds" in data else ()
        if int(data["input_size"]) != INPUT_SIZE or tuple(str(g) for g in data["games"]) != GAMES or kinds != KINDS:
            raise ValueError(f"{path}: weights for another encoding ({int(data['input_size'])} inputs, "
                             f"games {list(data['games'])}, kinds {list(kinds)}); "
                             "retrain with python -m tricktable.bots.learned.train")
        net = Network(*(data[k].astype(np.float32) for k in ("w1", "b1", "w2", "b2", "trust")))
    if net.w1.shape[0] != INPUT_SIZE or net.w2.shape[1] != ACTION_COUNT or net.trust.shape != (len(GAMES), len(KINDS)):
        raise ValueError(f"{path}: shapes {net.w1.shape} {net.w2.shape} {net.trust.shape} do not fit the features")
    return net
