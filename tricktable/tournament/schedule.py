"""Schedules: which entrants meet, on which decks, in which seats.

A *group* is the set of entrants at one table: one per side, or one per
seat when partners rotate (``partners = "rotate"``). Every group plays the
same deck sets of its round (deck set ``d`` of round ``r`` has the seed
HMAC-SHA256(deck key, ``f"{seed}/r{r}/d{d}"``): the same decks and first
dealer wherever it is played; the deck key is the tournament's secret, drawn
when it begins and kept in its store, so no entrant can compute a deck set
from the config), and each deck set is played in every *arrangement* of the group:

- duplicate rotation: entrant ``i`` of the group sits on side ``(i + t) mod S``
  for ``t = 0..S-1``, so each entrant holds every side's cards once (with two
  sides: each side plays both directions of the same decks);
- with rotating partners, first every split of the group into sides
  (3 splits for four entrants in two pairs), each then rotated as above.

Formats: ``round_robin`` plays every group of ``k`` entrants; ``gauntlet``
plays the challenger with every group of ``k - 1`` of the field; ``swiss``
plays rounds whose groups are formed from the standings so far
(:func:`swiss_groups`: by score, no repeated meeting while one can be avoided,
byes to the lowest-placed entrant that has had the fewest).

Everything here is pure and deterministic: the same config (and, for Swiss,
the same earlier results) gives the same matches with the same ids, which is
what lets an interrupted tournament resume without playing a match twice.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the arena (SDK, no pydantic) schedules too; only the organiser's runs read a config
    from tricktable.tournament.config import TournamentConfig


@dataclass(frozen=True, slots=True, kw_only=True)
class MatchSpec:
    """One match to play: everything a runner needs, and where it sits in the schedule."""

    match_id: str
    round: int
    deck_set: int
    group: int
    arrangement: int
    #: The deck seed (same for every group and arrangement of a deck set).
    seed: str
    game: str
    options: Mapping[str, Any]
    #: Entrant name by seat.
    seats: tuple[str, ...]
    #: Seats of each side, as the game's config gives them.
    sides: tuple[tuple[int, ...], ...]

    @property
    def order(self) -> tuple[int, int, int, int]:
        """Schedule order: results are rated in this order, whatever order they finished in."""
        return (self.round, self.deck_set, self.group, self.arrangement)

    def side_entrants(self) -> tuple[tuple[str, ...], ...]:
        """The distinct entrants of each side, in seat order (one per side unless partners rotate)."""
        out = []
        for side in self.sides:
            names: list[str] = []
            for seat in side:
                if self.seats[seat] not in names:
                    names.append(self.seats[seat])
            out.append(tuple(names))
        return tuple(out)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON values (for exports and Ray tasks)."""
        return {"match_id": self.match_id, "round": self.round, "deck_set": self.deck_set, "group": self.group,
                "arrangement": self.arrangement, "seed": self.seed, "game": self.game,
                "options": dict(self.options), "seats": list(self.seats), "sides": [list(s) for s in self.sides]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MatchSpec:
        """Inverse of :meth:`to_json`."""
        return cls(match_id=data["match_id"], round=data["round"], deck_set=data["deck_set"], group=data["group"],
                   arrangement=data["arrangement"], seed=data["seed"], game=data["game"],
                   options=dict(data["options"]), seats=tuple(data["seats"]),
                   sides=tuple(tuple(s) for s in data["sides"]))


# --- arrangements ----------------------------------------------------------------


def equal_splits(items: Sequence[str], block: int) -> list[tuple[tuple[str, ...], ...]]:
    """Every way to split ``items`` into blocks of ``block`` (unordered blocks, canonical order).

    The first block holds ``items[0]``; four entrants in pairs give 3 splits.
    """
    if not items:
        return [()]
    first, rest = items[0], list(items[1:])
    out: list[tuple[tuple[str, ...], ...]] = []
    for mates in itertools.combinations(rest, block - 1):
        remaining = [x for x in rest if x not in mates]
        for tail in equal_splits(remaining, block):
            out.append(((first, *mates), *tail))
    return out


def arrangements(group: Sequence[str], sides: Sequence[Sequence[int]], players: int,
                 *, rotate_partners: bool) -> list[tuple[str, ...]]:
    """The seatings (entrant by seat) a group plays each deck set in.

    Fixed partners: ``len(sides)`` rotations, entrant ``i`` on side ``(i + t) mod S``, filling all its seats.
    Rotating partners: for every split of the group into sides, the same rotations.
    """
    count = len(sides)
    if rotate_partners:
        splits = equal_splits(list(group), len(sides[0]))
    else:
        splits = [tuple((name,) * len(sides[0]) for name in group)]
    seatings = []
    for split in splits:
        for turn in range(count):
            seats = [""] * players
            for i, team in enumerate(split):
                side = sides[(i + turn) % count]
                for seat, name in zip(side, team, strict=True):
                    seats[seat] = name
            seatings.append(tuple(seats))
    return seatings


def arrangements_per_deck_set(config: TournamentConfig) -> int:
    """How many games one group plays on one deck set."""
    group = [f"e{i}" for i in range(config.units_per_table)]
    return len(arrangements(group, config.sides, config.players, rotate_partners=config.rotating_partners))


def groups_per_round(config: TournamentConfig) -> int:
    """Groups (tables at once) in each round: every group of a fixed format; a Swiss round seats all but the byes."""
    if config.format == "swiss":
        return len(config.entrants) // config.units_per_table
    return len(fixed_groups(config))


def tables_per_deck_set(config: TournamentConfig) -> int:
    """Games dealt from one deck set: every group of its round plays it in every arrangement (its twins)."""
    return groups_per_round(config) * arrangements_per_deck_set(config)


def deck_set_index(config: TournamentConfig, spec: MatchSpec) -> int:
    """The match's place among the :func:`tables_per_deck_set` games of its deck set (group, then arrangement)."""
    return spec.group * arrangements_per_deck_set(config) + spec.arrangement


def deck_sets_per_group(config: TournamentConfig) -> int:
    """Deck sets each group plays (per round): ``deck_sets``, else ``games`` rounded up to whole rotations."""
    return deck_sets_for(config.games, config.deck_sets, arrangements_per_deck_set(config))


def deck_sets_for(games: int, deck_sets: int | None, arrangements: int) -> int:
    """``deck_sets`` when given, else ``games`` rounded up to whole deck sets of ``arrangements`` games each.

    A tournament file's ``games`` and the arena's count games the same way: every deck set is
    played in every arrangement, so a duplicate comparison is never left half played.
    """
    return deck_sets if deck_sets is not None else -(-games // arrangements)


def deck_seed(config: TournamentConfig, round_index: int, deck_set: int, deck_key: str = "") -> str:
    """The seed of deck set ``deck_set`` of round ``round_index``: an HMAC of the deck-set id under ``deck_key``.

    Why an HMAC: the id is public (config seed, round, deck set), the key is
    not, so the decks stay unknown to the entrants until the tournament
    reveals the key; an empty key (tests) makes them derivable from the config.
    """
    deck_set_id = f"{config.seed}/r{round_index}/d{deck_set}"
    return hmac.new(deck_key.encode(), deck_set_id.encode(), hashlib.sha256).hexdigest()


# --- formats -----------------------------------------------------------------------


def round_robin_groups(names: Sequence[str], k: int) -> list[tuple[str, ...]]:
    """Every group of ``k`` entrants (pairs when ``k`` = 2), in entrant order."""
    return list(itertools.combinations(names, k))


def gauntlet_groups(challenger: str, names: Sequence[str], k: int) -> list[tuple[str, ...]]:
    """The challenger with every group of ``k - 1`` entrants of the field."""
    field = [n for n in names if n != challenger]
    return [(challenger, *rest) for rest in itertools.combinations(field, k - 1)]


def _round_rng(seed: str, round_index: int) -> random.Random:
    digest = hashlib.sha256(f"tricktable-swiss|{seed}|{round_index}".encode()).digest()
    return random.Random(int.from_bytes(digest, "big"))


def _pairs(group: Iterable[str]) -> set[frozenset[str]]:
    return {frozenset(p) for p in itertools.combinations(group, 2)}


def _pair_up(order: list[str], met: set[frozenset[str]]) -> list[tuple[str, ...]] | None:
    """Pair in standings order, the top one with the best-placed it has not met (backtracking)."""
    if not order:
        return []
    top, rest = order[0], order[1:]
    for i, other in enumerate(rest):
        if frozenset((top, other)) in met:
            continue
        tail = _pair_up(rest[:i] + rest[i + 1:], met)
        if tail is not None:
            return [(top, other), *tail]
    return None


def _group_up(order: list[str], met: set[frozenset[str]], k: int) -> list[tuple[str, ...]]:
    """Groups of ``k`` in standings order, preferring entrants none of the group has met."""
    left = list(order)
    groups: list[tuple[str, ...]] = []
    while left:
        group = [left.pop(0)]
        while len(group) < k:
            pick = next((x for x in left if not any(frozenset((x, g)) in met for g in group)), left[0])
            left.remove(pick)
            group.append(pick)
        groups.append(tuple(group))
    return groups


def swiss_groups(names: Sequence[str], scores: Mapping[str, float], met: set[frozenset[str]],
                 byes: Mapping[str, int], k: int, *, seed: str, round_index: int
                 ) -> tuple[list[tuple[str, ...]], list[str]]:
    """The groups of a Swiss round and the entrants with a bye.

    Standings: by score, ties in an order shuffled from the seed and round.
    Byes (when the entrants do not divide into groups of ``k``) go to the
    lowest-placed entrants with the fewest byes. Pairs (``k`` = 2) never
    repeat a meeting while some pairing avoids it; larger groups avoid
    repeats greedily.
    """
    tiebreak = list(names)
    _round_rng(seed, round_index).shuffle(tiebreak)
    rank = {n: i for i, n in enumerate(tiebreak)}
    order = sorted(names, key=lambda n: (-scores.get(n, 0.0), rank[n]))
    extra = len(order) % k
    bye: list[str] = []
    if extra:
        # Lowest-placed first among those with the fewest byes.
        candidates = sorted(reversed(order), key=lambda n: byes.get(n, 0))
        bye = candidates[:extra]
        order = [n for n in order if n not in bye]
    if k == 2:
        paired = _pair_up(order, met)
        if paired is None:  # every pairing repeats a meeting: pair neighbours in the standings
            paired = [tuple(order[i:i + 2]) for i in range(0, len(order), 2)]
        return paired, bye
    return _group_up(order, met, k), bye


def groups_met(groups: Iterable[Sequence[str]]) -> set[frozenset[str]]:
    """Every pair of entrants that sat at one table of ``groups``."""
    met: set[frozenset[str]] = set()
    for g in groups:
        met |= _pairs(g)
    return met


def round_matches(config: TournamentConfig, round_index: int, groups: Sequence[Sequence[str]],
                  deck_key: str = "") -> list[MatchSpec]:
    """Every match of one round: each group on each deck set in each arrangement, in schedule order."""
    sides = config.sides
    players = config.players
    out: list[MatchSpec] = []
    for deck_set in range(deck_sets_per_group(config)):
        seed = deck_seed(config, round_index, deck_set, deck_key)
        for g, group in enumerate(groups):
            for a, seats in enumerate(arrangements(group, sides, players, rotate_partners=config.rotating_partners)):
                out.append(MatchSpec(
                    match_id=f"r{round_index}-d{deck_set}-g{g}-a{a}", round=round_index, deck_set=deck_set,
                    group=g, arrangement=a, seed=seed, game=config.game, options=dict(config.options),
                    seats=seats, sides=sides))
    return out


def fixed_groups(config: TournamentConfig) -> list[tuple[str, ...]]:
    """The groups of a single-round format (round robin, gauntlet)."""
    names = [e.name for e in config.entrants]
    k = config.units_per_table
    if config.format == "gauntlet":
        return gauntlet_groups(config.effective_challenger, names, k)
    if config.format == "round_robin":
        return round_robin_groups(names, k)
    raise ValueError(f"{config.format} has no fixed groups (rounds depend on results)")
