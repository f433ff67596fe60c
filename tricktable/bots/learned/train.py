"""Train the learned bot: value heuristic play's decisions in their true deals, fit the advantages in NumPy.

    python -m tricktable.bots.learned.train --workers 2 --data decisions/

(seed, matches, epochs and confidence are the defaults: they reproduce the shipped weights; docs/strength.md
says in what time)

1. **Decisions.** Each game's matches are played by the heuristic at every seat, seeded from
   ``--seed``; every decision the bot chooses in (:mod:`tricktable.bots.learned.labels`) becomes a
   row: the network's input (:func:`~tricktable.bots.learned.features.features`), which actions were
   valued, and each one's advantage over the heuristic's choice in the true deal, played on by the
   heuristic. With ``--data DIR`` each match's rows are kept in its own file there and read back
   instead of played again, so a stopped run resumes where it stopped.
2. **Fit.** A one-hidden-layer network (:mod:`~tricktable.bots.learned.network`) regresses the
   advantages (each game's scaled to unit spread) by masked squared error with Adam on minibatches.
3. **Margins.** On a held-out share of the matches, each game and kind of decision's margin
   (``trust``) is the one whose choices gain the most over the heuristic's by the held-out decisions'
   own values, kept where that gain is ``--confidence`` standard errors clear of zero (:func:`tune`):
   the bot departs from the heuristic only where the predicted advantage exceeds it. The held-out
   values are the true deals' and independent of the fit, so the gain printed is an honest estimate of
   what one departure is worth against heuristic play (a little flattered by choosing the best
   margin). ``--margin`` sets margins instead, a game's (``GAME=X``) or one kind of decision's in a
   game (``GAME:KIND=X``, the kinds of :data:`~tricktable.bots.learned.features.KINDS`), ``never``
   for the heuristic's choice always.

The same arguments give the same weights (the deals, the held-out matches and the fit are seeded).
Needs NumPy (``pip install 'tricktable[train]'``).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tricktable.bots.learned.features import GAMES, INPUT_SIZE, KINDS, SUGGESTION, decision_kind, features
from tricktable.bots.learned.labels import match_decisions
from tricktable.bots.learned.network import WEIGHTS, Floats, Network
from tricktable.envs.encoding import ACTION_COUNT, action_index

#: The options the matches are played with: each game's defaults, Cinq Cents to 500 as the ladder plays it.
TRAIN_OPTIONS: dict[str, dict[str, Any]] = {"cinq_cents": {"target": 500}}
#: The shipped weights' seed, matches a game and passes over the decisions (docs/strength.md says in what time).
DEFAULT_SEED = "rollout"
DEFAULT_MATCHES = {"twenty_five": 12000, "forty_five": 12000, "all_fives": 3000, "cinq_cents": 300}
DEFAULT_EPOCHS = 8
#: Standard errors a margin's held-out gain must exceed to be kept (:func:`tune`).
DEFAULT_CONFIDENCE = 2.0
#: Deals a training match plays at most (a match that never ends still yields decisions).
MAX_DEALS = 60
#: The margins tried on the held-out decisions, in units of the game's spread of advantages.
MARGINS = tuple(float(m) for m in np.round(np.arange(0.0, 3.01, 0.05), 2))
#: A margin no prediction reaches: the heuristic's choice always (the held-out gain said no margin paid).
NEVER = 1e6


@dataclass(frozen=True, slots=True)
class Rows:
    """Decisions: inputs, the valued actions, each one's advantage over the heuristic's choice, game, kind and match."""

    x: Floats
    mask: npt.NDArray[np.bool_]
    target: Floats
    #: The game of each row (an index into :data:`GAMES`).
    game: npt.NDArray[np.int8]
    #: The kind of decision of each row (an index into :data:`KINDS`): the margins are tuned per game and kind.
    kind: npt.NDArray[np.int8]
    #: The match each row was played in (its place in the run's order): the held-out share is whole matches.
    match: npt.NDArray[np.int32]

    @classmethod
    def join(cls, parts: Sequence[Rows]) -> Rows:
        """All the rows of ``parts``, in order."""
        return cls(*(np.concatenate([getattr(p, f) for p in parts]) for f in _FIELDS))

    def take(self, keep: npt.NDArray[np.bool_]) -> Rows:
        """The rows where ``keep`` is true."""
        return Rows(*(getattr(self, f)[keep] for f in _FIELDS))

    def save(self, path: Path) -> None:
        """Write the rows (compressed)."""
        np.savez_compressed(path, **{f: getattr(self, f) for f in _FIELDS})

    @classmethod
    def load(cls, path: Path) -> Rows:
        """The rows :meth:`save` wrote."""
        with np.load(path) as saved:
            return cls(*(saved[f] for f in _FIELDS))

    def __len__(self) -> int:
        return len(self.x)


_FIELDS = tuple(f.name for f in fields(Rows))


def match_rows(game: str, seed: str, match: int = 0) -> Rows:
    """One heuristic match of ``game``, its decisions valued in the true deal played on, as rows of match ``match``."""
    labelled = match_decisions(game, TRAIN_OPTIONS.get(game, {}), seed, MAX_DEALS)
    n = len(labelled)
    x = np.zeros((n, INPUT_SIZE), np.float32)
    mask = np.zeros((n, ACTION_COUNT), np.bool_)
    target = np.zeros((n, ACTION_COUNT), np.float32)
    kind = np.zeros(n, np.int8)
    for i, row in enumerate(labelled):
        x[i] = features(row.view)[0]
        kind[i] = KINDS.index(decision_kind(row.view))
        for action, advantage in row.advantage.items():
            mask[i, action_index(action)] = True
            target[i, action_index(action)] = advantage
    return Rows(x, mask, target, np.full(n, GAMES.index(game), np.int8), kind, np.full(n, match, np.int32))


def _task(task: tuple[str, str, int, Path | None]) -> Rows:
    game, seed, match, shard = task
    if shard is not None and shard.exists():
        return Rows.load(shard)
    rows = match_rows(game, seed, match)
    if shard is not None:
        rows.save(shard)
    return rows


def decisions(matches: dict[str, int], seed: str, workers: int, data: Path | None = None) -> Rows:
    """Every game's valued decisions (``matches[game]`` matches each), in a fixed order whatever ``workers``.

    With ``data`` (a directory), each match's rows are read from its file there, or played and written.
    """
    if data is not None:
        data.mkdir(parents=True, exist_ok=True)
    order = sorted(((i + 1) / n, g, i) for g, game in enumerate(GAMES) if (n := matches.get(game, 0))
                   for i in range(n))  # the games interleaved: a run stopped early has some of every game
    tasks = [(GAMES[g], f"{seed}|{GAMES[g]}|{i}", k, None if data is None else data / f"{GAMES[g]}-{i}.npz")
             for k, (_, g, i) in enumerate(order)]
    if workers <= 1:
        return Rows.join([_task(t) for t in tasks])
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return Rows.join(list(pool.map(_task, tasks, chunksize=8)))


def scales(rows: Rows) -> Floats:
    """Each game's spread of advantages (the root mean square of the non-zero ones; 1 for a game with none)."""
    out = np.ones(len(GAMES), np.float32)
    for g in range(len(GAMES)):
        values = rows.target[(rows.game == g)[:, None] & rows.mask]
        values = values[values != 0]
        if values.size:
            out[g] = float(np.sqrt(np.mean(values ** 2)))
    return out


def fit(rows: Rows, *, hidden: int = 128, epochs: int = 10, batch: int = 256, lr: float = 1e-3,
        decay: float = 1e-5, seed: int = 0) -> Network:
    """A network fitted to ``rows``' scaled advantages by masked squared error with Adam (He initialisation, L2)."""
    rng = np.random.default_rng(seed)
    scaled = rows.target / scales(rows)[rows.game.astype(np.int64)][:, None]
    params = [
        (rng.standard_normal((INPUT_SIZE, hidden)) * np.sqrt(2 / INPUT_SIZE)).astype(np.float32),
        np.zeros(hidden, np.float32),
        (rng.standard_normal((hidden, ACTION_COUNT)) * np.sqrt(1 / hidden)).astype(np.float32) * 0.1,
        np.zeros(ACTION_COUNT, np.float32),
    ]
    first = [np.zeros_like(p) for p in params]
    second = [np.zeros_like(p) for p in params]
    beta1, beta2, eps, step = 0.9, 0.999, 1e-8, 0
    for _ in range(epochs):
        order = rng.permutation(len(rows))
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            x, mask, target = rows.x[idx], rows.mask[idx], scaled[idx]
            w1, b1, w2, b2 = params
            pre = x @ w1 + b1
            h = np.maximum(pre, 0.0)
            grad_out = np.where(mask, (h @ w2 + b2) - target, 0.0).astype(np.float32) * (2 / max(1, int(mask.sum())))
            grad_h = (grad_out @ w2.T) * (pre > 0)
            grads = [x.T @ grad_h + decay * w1, grad_h.sum(0), h.T @ grad_out + decay * w2, grad_out.sum(0)]
            step += 1
            for p, g, m, v in zip(params, grads, first, second, strict=True):
                m *= beta1
                m += (1 - beta1) * g
                v *= beta2
                v += (1 - beta2) * g * g
                p -= lr * (m / (1 - beta1 ** step)) / (np.sqrt(v / (1 - beta2 ** step)) + eps)
    w1, b1, w2, b2 = params
    return Network(w1, b1, w2, b2, np.zeros(len(GAMES), np.float32))


def gains(net: Network, rows: Rows, margin: float,
          logits: Floats | None = None) -> tuple[Floats, npt.NDArray[np.bool_]]:
    """Per row: the held-out advantage of the action the bot plays at ``margin``, and whether it departed.

    ``logits``: the network's logits of ``rows.x`` already computed.
    """
    suggested = rows.x[:, SUGGESTION] > 0
    scores = np.where(rows.mask, net.scores(rows.x, margin, logits), -np.inf)
    chosen = np.argmax(scores, axis=1)
    gain: Floats = rows.target[np.arange(len(rows)), chosen]
    return gain, ~suggested[np.arange(len(rows)), chosen]


@dataclass(frozen=True, slots=True)
class Tuned:
    """One game and kind's margin and what it gains on the held-out decisions."""

    game: str
    kind: str
    decisions: int
    #: The margin kept (:data:`NEVER` where no margin's gain was sure enough), and the best margin tried.
    margin: float
    best: float
    #: The best margin's mean gain a decision (the game's points) and its standard error; its share of departures.
    gain: float
    error: float
    departed: float


def tune(net: Network, rows: Rows, confidence: float) -> tuple[Network, list[Tuned]]:
    """``net`` with each game and kind's margin the one of :data:`MARGINS` that gains most on ``rows`` (held out).

    A margin is kept only where its mean gain exceeds ``confidence`` standard errors; elsewhere the
    bot plays the heuristic's choice (:data:`NEVER`). Why: many margins are tried on each kind, so the
    best one's gain is flattered; a gain that is not clear of its noise was likely luck of the held-out
    deals. The held-out values are those of the true deals (:mod:`~tricktable.bots.learned.labels`), so
    a gain kept is what departing from the heuristic is worth against it, one decision at a time.
    Returns the tuned network and a line per game and kind with held-out decisions.
    """
    trust = np.full((len(GAMES), len(KINDS)), NEVER, np.float32)
    report: list[Tuned] = []
    for g, game in enumerate(GAMES):
        for k, kind in enumerate(KINDS):
            mine = rows.take((rows.game == g) & (rows.kind == k))
            if len(mine) < 2:
                continue
            found = []
            logits = net.logits(mine.x)
            for margin in MARGINS:
                gain, departed = gains(net, mine, margin, logits)
                found.append((float(gain.mean()), margin, float(gain.std(ddof=1)) / np.sqrt(len(gain)),
                              float(departed.mean())))
            mean, best, error, share = max(found)
            kept = best if mean > confidence * error else NEVER
            trust[g, k] = kept
            report.append(Tuned(game, kind, len(mine), kept, best, mean, error, share))
    return Network(net.w1, net.b1, net.w2, net.b2, trust), report


#: A setting of one game (``(game, None)``) or of one kind of decision in it (``(game, kind)``).
MarginKey = tuple[str, str | None]


def _settings(text: str, *, kinds: bool) -> dict[MarginKey, float]:
    """Comma-separated ``GAME=NUMBER`` settings; with ``kinds`` also ``GAME:KIND=NUMBER`` and ``never``.

    Raises:
        argparse.ArgumentTypeError: naming the setting that is not one.
    """
    games = ", ".join(GAMES)
    usage = (f"GAME=X or GAME:KIND=X with GAME one of {games}, KIND one of {', '.join(KINDS)} "
             "and X a number or never" if kinds else f"GAME=NUMBER with GAME one of {games}")
    out: dict[MarginKey, float] = {}
    for part in text.split(","):
        where, _, number = part.partition("=")
        game, _, kind = where.partition(":") if kinds else (where, "", "")
        try:
            value = NEVER if kinds and number == "never" else float(number)
        except ValueError:
            value = -1.0
        if game not in GAMES or (kind and kind not in KINDS) or value < 0:
            raise argparse.ArgumentTypeError(f"{part!r}: give {usage}")
        out[game, kind or None] = value
    return out


def _matches(text: str) -> dict[str, int]:
    return {game: int(n) for (game, _), n in _settings(text, kinds=False).items()}


def margins(text: str) -> dict[MarginKey, float]:
    """``GAME=X`` and ``GAME:KIND=X`` settings, comma-separated; X a number of spreads or ``never``.

    Raises:
        argparse.ArgumentTypeError: naming the setting that is not one.
    """
    return _settings(text, kinds=True)


def with_margins(net: Network, settings: dict[MarginKey, float]) -> Network:
    """``net`` with margins set: a game's for all its kinds first, then single kinds' (units of the game's spread)."""
    trust = net.trust.copy()
    for (game, kind), margin in sorted(settings.items(), key=lambda item: item[0][1] is not None):
        row = GAMES.index(game)
        if kind is None:
            trust[row, :] = margin
        else:
            trust[row, KINDS.index(kind)] = margin
    return Network(net.w1, net.b1, net.w2, net.b2, trust)


def main(argv: Sequence[str] | None = None) -> None:
    """The command line (see the module docstring)."""
    parser = argparse.ArgumentParser(prog="python -m tricktable.bots.learned.train", description=__doc__.split("\n")[0])
    parser.add_argument("--seed", default=DEFAULT_SEED, help="seeds the matches' deals, the held-out share and the fit")
    parser.add_argument("--matches", type=_matches, default=DEFAULT_MATCHES,
                        help="matches a game, as GAME=N,GAME=N (default: %(default)s)")
    parser.add_argument("--workers", type=int, default=1, help="processes playing the matches")
    parser.add_argument("--hidden", type=int, default=128, help="units of the hidden layer")
    parser.add_argument("--epochs", type=int, default=DEFAULT_EPOCHS, help="passes over the decisions")
    parser.add_argument("--holdout", type=float, default=0.2, help="share of matches held out to tune the margins")
    parser.add_argument("--confidence", type=float, default=DEFAULT_CONFIDENCE,
                        help="standard errors a margin's held-out gain must exceed to be kept (default: %(default)s)")
    parser.add_argument("--margin", type=margins, default={},
                        help="margins set rather than tuned, as GAME=X or GAME:KIND=X (X a number or never), "
                             "comma-separated")
    parser.add_argument("--data", type=Path, help="a directory keeping each match's decisions (read back if there)")
    parser.add_argument("--out", type=Path, default=WEIGHTS, help="the weights file to write")
    args = parser.parse_args(argv)
    start = time.monotonic()
    rows = decisions(args.matches, args.seed, args.workers, args.data)
    print(f"{len(rows)} decisions from {sum(args.matches.values())} matches in {time.monotonic() - start:.0f} s")
    fit_seed = int.from_bytes(args.seed.encode()[:8].ljust(8, b"\0"), "little")
    held = (np.random.default_rng(fit_seed).random(int(rows.match.max(initial=-1)) + 1) < args.holdout)[rows.match]
    fitted = time.monotonic()
    net = fit(rows.take(~held), hidden=args.hidden, epochs=args.epochs, seed=fit_seed)
    print(f"fitted in {time.monotonic() - fitted:.0f} s")
    net, report = tune(net, rows.take(held), args.confidence)
    for line in report:
        said = "never departs" if line.margin == NEVER else f"margin {line.margin:.2f}"
        print(f"{line.game} {line.kind} ({line.decisions} held out): {said}; at margin {line.best:.2f} it gains "
              f"{line.gain:+.4f} +- {line.error:.4f} points a decision, departing on {100 * line.departed:.1f}%")
    if args.margin:
        net = with_margins(net, args.margin)
        print("margins set: " + ", ".join(f"{g}{':' + k if k else ''} {'never' if m == NEVER else f'{m:.2f}'}"
                                          for (g, k), m in args.margin.items()))
    net.save(args.out)
    print(f"wrote {args.out} in {time.monotonic() - start:.0f} s")


if __name__ == "__main__":
    main()
