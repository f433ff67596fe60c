"""The learned bot's network: one hidden layer, its forward pass in NumPy, its weights in one ``.npz`` file.

Why so small: a decision must cost well under a millisecond of CPU (the encoding in Python costs more
than the two matrix products), and the weights ship inside the package. The file holds ``w1``, ``b1``,
``w2``, ``b2`` (float32), ``trust`` (one number a game, see :class:`Network`) and ``input_size`` and
``games`` to check it fits the features it is given.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt

from tricktable.bots.learned.features import GAMES, INPUT_SIZE
from tricktable.envs.encoding import ACTION_COUNT, OBSERVATION_SIZE

#: The weights that ship with the package (reproduced by ``python -m tricktable.bots.learned.train``).
WEIGHTS = Path(__file__).with_name("weights.npz")

Floats = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class Network:
    """``logits = relu(x @ w1 + b1) @ w2 + b2``: one score per catalog action.

    When it plays, the heuristic's choice gets ``trust[game]`` more: the network departs from the
    heuristic only where it prefers another action by that margin. Why: imitating a noisy teacher
    from few decisions, the network is surest where the teacher departs from the heuristic again and
    again, and the heuristic is the better guess where it is unsure.
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

    def scores(self, x: Floats) -> Floats:
        """The logits with each row's heuristic choice raised by its game's ``trust``: what the bot maximises."""
        game = x[..., OBSERVATION_SIZE:OBSERVATION_SIZE + len(GAMES)]
        out: Floats = self.logits(x) + (game @ self.trust)[..., None] * x[..., INPUT_SIZE - ACTION_COUNT:]
        return out

    def choose(self, x: Floats, mask: npt.NDArray[np.bool_]) -> int:
        """The highest-scored action the mask allows (the first of equals: the same input, the same choice)."""
        return int(np.argmax(np.where(mask, self.scores(x), -np.inf)))

    def save(self, path: Path) -> None:
        """Write the weights (compressed) with the input size and games they were trained for."""
        np.savez_compressed(path, w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2, trust=self.trust,
                            input_size=np.array(INPUT_SIZE), games=np.array(GAMES))


@lru_cache(maxsize=4)
def load(path: Path = WEIGHTS) -> Network:
    """The network in ``path``, read once per process.

    Raises:
        ValueError: the file's network was trained for other features or games than these.
        OSError: no such file.
    """
    with np.load(path) as data:
        if int(data["input_size"]) != INPUT_SIZE or tuple(str(g) for g in data["games"]) != GAMES:
            raise ValueError(f"{path}: weights for another encoding ({int(data['input_size'])} inputs, "
                             f"games {list(data['games'])}); retrain with python -m tricktable.bots.learned.train")
        net = Network(*(data[k].astype(np.float32) for k in ("w1", "b1", "w2", "b2", "trust")))
    if net.w1.shape[0] != INPUT_SIZE or net.w2.shape[1] != ACTION_COUNT:
        raise ValueError(f"{path}: layer shapes {net.w1.shape} {net.w2.shape} do not fit the features")
    return net
