"""Train the learned bot: imitate the search on self-play deals, then fit the network with Adam in NumPy.

    python -m tricktable.bots.learned.train --seed learned1 --sims 20 --workers 2 \\
        --matches twenty_five=320,forty_five=50,all_fives=90,cinq_cents=6 \\
        --trust twenty_five=1,forty_five=1,all_fives=2,cinq_cents=2 --data decisions.npz

(seed, sims, matches and trust are the defaults: they reproduce the shipped weights; docs/strength.md
says in what time)

1. **Decisions.** Each game's matches are played by the search bot at a fixed number of worlds a
   decision (``--sims``, reproducible), seeded from ``--seed``; every decision with more than one
   legal action becomes a row: the network's input (:func:`~tricktable.bots.learned.features.features`),
   the action mask, and the search's choice as the target. A Cinq Cents discard is six rows, one a
   pick, each with the discard's cards not yet picked as equally good targets.
2. **Fit.** A one-hidden-layer network (:mod:`~tricktable.bots.learned.network`) is fitted by
   masked softmax cross-entropy with Adam on minibatches, a share of the rows held out to report how
   often it agrees with the search (and how often the heuristic alone does). ``--trust`` is the
   margin a game by which the bot prefers the heuristic's choice when it plays
   (:class:`~tricktable.bots.learned.network.Network`).

The same arguments give the same weights (the search's worlds and the fit's generator are seeded).
Needs NumPy (``pip install 'tricktable[train]'``).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tricktable.bots.learned.features import GAMES, INPUT_SIZE, features
from tricktable.bots.learned.network import WEIGHTS, Floats, Network
from tricktable.bots.search import SearchBot
from tricktable.client_sdk.bot import action_of
from tricktable.envs.encoding import ACTION_COUNT, ACTIONS, PICK, action_index
from tricktable.rules.actions import Action, Discard
from tricktable.rules.match import Match, play_out
from tricktable.rules.registry import new_match

#: The options the matches are played with: each game's defaults, Cinq Cents to 500 as the ladder plays it.
TRAIN_OPTIONS: dict[str, dict[str, Any]] = {"cinq_cents": {"target": 500}}
#: The shipped weights' matches a game (Twenty-Five's matches are short, Cinq Cents' long and slow to search).
DEFAULT_MATCHES = {"twenty_five": 320, "forty_five": 50, "all_fives": 90, "cinq_cents": 6}
#: The shipped weights' margin a game for the heuristic's choice (measured on the ladder: docs/strength.md).
DEFAULT_TRUST = {"twenty_five": 1.0, "forty_five": 1.0, "all_fives": 2.0, "cinq_cents": 2.0}
_PICK_INDEX = {text.removeprefix(PICK + "-"): i for i, text in enumerate(ACTIONS) if text.startswith(PICK + "-")}


@dataclass(frozen=True, slots=True)
class Rows:
    """Decisions: inputs, masks and target distributions over the catalog, one row each."""

    x: Floats
    mask: npt.NDArray[np.bool_]
    target: Floats
    #: The game of each row (an index into :data:`GAMES`), for the per-game agreement.
    game: npt.NDArray[np.int8]

    @classmethod
    def join(cls, parts: Sequence[Rows]) -> Rows:
        """All the rows of ``parts``, in order."""
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in ("x", "mask", "target", "game")))

    def __len__(self) -> int:
        return len(self.x)


def match_rows(game: str, seed: str, sims: int) -> Rows:
    """Play one match of ``game`` by the search at ``sims`` worlds a decision and return its decisions."""
    options = TRAIN_OPTIONS.get(game, {})
    match = new_match(game, options, seed=seed)
    bots = [SearchBot(f"{seed}|{seat}", simulations=sims) for seat in range(match.config.players)]
    xs: list[list[float]] = []
    masks: list[list[int]] = []
    targets: list[list[float]] = []

    def add(row: tuple[list[float], list[int]], target: list[float]) -> None:
        xs.append(row[0])
        masks.append(row[1])
        targets.append(target)

    def choose(state: Match, seat: int) -> Action:
        view = state.view(seat)
        action = action_of(bots[seat].choose_action(view))
        if len(view.legal_actions) > 1:
            if isinstance(action, Discard):
                order = sorted(action.cards, key=lambda c: _PICK_INDEX[c.code])
                for k in range(len(order)):
                    target = [0.0] * ACTION_COUNT
                    for card in order[k:]:
                        target[_PICK_INDEX[card.code]] = 1.0 / (len(order) - k)
                    add(features(view, order[:k]), target)
            else:
                target = [0.0] * ACTION_COUNT
                target[action_index(action)] = 1.0
                add(features(view), target)
        return action

    play_out(match, choose)
    n = len(xs)
    return Rows(np.asarray(xs, dtype=np.float32).reshape(n, INPUT_SIZE),
                np.asarray(masks, dtype=np.bool_).reshape(n, ACTION_COUNT),
                np.asarray(targets, dtype=np.float32).reshape(n, ACTION_COUNT),
                np.full(n, GAMES.index(game), dtype=np.int8))


def _task(task: tuple[str, str, int]) -> Rows:
    return match_rows(*task)


def decisions(matches: dict[str, int], seed: str, sims: int, workers: int) -> Rows:
    """Every game's self-play decisions (``matches[game]`` matches each), in a fixed order whatever ``workers``."""
    tasks = [(game, f"{seed}|{game}|{i}", sims) for game in GAMES for i in range(matches.get(game, 0))]
    if workers <= 1:
        return Rows.join([_task(t) for t in tasks])
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return Rows.join(list(pool.map(_task, tasks)))


def _masked_softmax(logits: Floats, mask: npt.NDArray[np.bool_]) -> Floats:
    z = np.where(mask, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    out: Floats = e / e.sum(axis=1, keepdims=True)
    return out


def fit(rows: Rows, *, hidden: int = 128, epochs: int = 10, batch: int = 256, lr: float = 1e-3,
        decay: float = 1e-5, seed: int = 0, trust: Sequence[float] = (0.0,) * len(GAMES)) -> Network:
    """A network fitted to ``rows`` by masked softmax cross-entropy with Adam (He initialisation, L2 ``decay``)."""
    rng = np.random.default_rng(seed)
    params = [
        (rng.standard_normal((INPUT_SIZE, hidden)) * np.sqrt(2 / INPUT_SIZE)).astype(np.float32),
        np.zeros(hidden, np.float32),
        (rng.standard_normal((hidden, ACTION_COUNT)) * np.sqrt(1 / hidden)).astype(np.float32),
        np.zeros(ACTION_COUNT, np.float32),
    ]
    first = [np.zeros_like(p) for p in params]
    second = [np.zeros_like(p) for p in params]
    beta1, beta2, eps, step = 0.9, 0.999, 1e-8, 0
    for _ in range(epochs):
        order = rng.permutation(len(rows))
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            x, mask, target = rows.x[idx], rows.mask[idx], rows.target[idx]
            w1, b1, w2, b2 = params
            pre = x @ w1 + b1
            h = np.maximum(pre, 0.0)
            grad_logits = (_masked_softmax(h @ w2 + b2, mask) - target) / len(idx)
            grad_h = (grad_logits @ w2.T) * (pre > 0)
            grads = [x.T @ grad_h + decay * w1, grad_h.sum(0), h.T @ grad_logits + decay * w2, grad_logits.sum(0)]
            step += 1
            for p, g, m, v in zip(params, grads, first, second, strict=True):
                m *= beta1
                m += (1 - beta1) * g
                v *= beta2
                v += (1 - beta2) * g * g
                p -= lr * (m / (1 - beta1 ** step)) / (np.sqrt(v / (1 - beta2 ** step)) + eps)
    w1, b1, w2, b2 = params
    return Network(w1, b1, w2, b2, np.asarray(trust, dtype=np.float32))


def agreement(net: Network, rows: Rows) -> dict[str, tuple[float, float]]:
    """Per game: how often the network's choice, and the heuristic's, is one the search chose (held-out rows)."""
    chosen = np.argmax(np.where(rows.mask, net.scores(rows.x), -np.inf), axis=1)
    suggested = rows.x[:, INPUT_SIZE - ACTION_COUNT:]
    hits = np.asarray(rows.target[np.arange(len(rows)), chosen] > 0, dtype=np.bool_)
    heuristic_hits = np.asarray(((suggested > 0) & (rows.target > 0)).any(axis=1), dtype=np.bool_)
    out: dict[str, tuple[float, float]] = {}
    for g, game in enumerate(GAMES):
        mine = np.asarray(rows.game == g, dtype=np.bool_)
        if mine.any():
            out[game] = (float(hits[mine].mean()), float(heuristic_hits[mine].mean()))
    return out


def _per_game(text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for part in text.split(","):
        game, _, number = part.partition("=")
        try:
            value = float(number)
        except ValueError:
            value = -1.0
        if game not in GAMES or value < 0:
            raise argparse.ArgumentTypeError(f"{part!r}: give GAME=NUMBER with GAME one of {', '.join(GAMES)}")
        out[game] = value
    return out


def _matches(text: str) -> dict[str, int]:
    return {game: int(n) for game, n in _per_game(text).items()}


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m tricktable.bots.learned.train", description=__doc__.split("\n")[0])
    parser.add_argument("--seed", default="learned1", help="seeds the matches' deals, the search and the fit")
    parser.add_argument("--sims", type=int, default=20, help="worlds the search teacher draws a decision")
    parser.add_argument("--matches", type=_matches, default=DEFAULT_MATCHES,
                        help="matches a game, as GAME=N,GAME=N (default: %(default)s)")
    parser.add_argument("--workers", type=int, default=1, help="processes playing the matches")
    parser.add_argument("--hidden", type=int, default=128, help="units of the hidden layer")
    parser.add_argument("--epochs", type=int, default=10, help="passes over the decisions")
    parser.add_argument("--trust", type=_per_game, default=DEFAULT_TRUST,
                        help="the heuristic's choice's margin a game, as GAME=X,... (default: %(default)s)")
    parser.add_argument("--holdout", type=float, default=0.05, help="share of decisions held out to report agreement")
    parser.add_argument("--data", type=Path, help="an .npz of decisions: read if it exists, else written")
    parser.add_argument("--out", type=Path, default=WEIGHTS, help="the weights file to write")
    args = parser.parse_args(argv)
    start = time.monotonic()
    if args.data is not None and args.data.exists():
        with np.load(args.data) as saved:
            rows = Rows(saved["x"], saved["mask"], saved["target"], saved["game"])
        print(f"{len(rows)} decisions read from {args.data}")
    else:
        rows = decisions(args.matches, args.seed, args.sims, args.workers)
        print(f"{len(rows)} decisions from {sum(args.matches.values())} matches in {time.monotonic() - start:.0f} s")
        if args.data is not None:
            np.savez_compressed(args.data, x=rows.x, mask=rows.mask, target=rows.target, game=rows.game)
    fit_seed = int.from_bytes(args.seed.encode()[:8].ljust(8, b"\0"), "little")
    held = np.random.default_rng(fit_seed).random(len(rows)) < args.holdout
    train = Rows(rows.x[~held], rows.mask[~held], rows.target[~held], rows.game[~held])
    test = Rows(rows.x[held], rows.mask[held], rows.target[held], rows.game[held])
    fitted = time.monotonic()
    net = fit(train, hidden=args.hidden, epochs=args.epochs, seed=fit_seed,
              trust=[args.trust.get(game, 0.0) for game in GAMES])
    print(f"fitted in {time.monotonic() - fitted:.0f} s")
    for game, (mine, heuristic) in agreement(net, test).items():
        print(f"{game}: agrees with the search on {100 * mine:.1f}% of held-out decisions "
              f"(the heuristic alone: {100 * heuristic:.1f}%)")
    net.save(args.out)
    print(f"wrote {args.out} in {time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main()
