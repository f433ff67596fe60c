"""A tournament's configuration: a small TOML file (or the same fields from flags), validated once.

Example (examples/tournament.toml)::

    name = "all-fives-demo"
    game = "all_fives"
    options = { players = 2 }
    format = "round_robin"      # or "swiss", "gauntlet"
    games = 12                  # per pairing (per round in Swiss), rounded up to whole duplicate sets
    seed = "demo-1"
    concurrency = 2

    [[entrants]]
    name = "random"
    bot = "random"              # a built-in bot, "package.module:Class" or "path/to/file.py:Class"

    [[entrants]]
    name = "mine"
    command = "python my_bot.py --server {address} --token {token}"

Choices:
- An entrant is either a bot (``bot``: a built-in name, ``module:Class`` or
  ``path/to/file.py:Class``; :func:`check_bots` loads each before a run) or
  a command template (any language) with the placeholders ``{address}``,
  ``{token}``, ``{seat}``, ``{name}``, ``{seed}``, ``{python}`` (this
  interpreter) and ``{tls_ca}`` (the ``--tls-ca`` file, empty without TLS).
  A built-in bot over the server runs as its own process, the same SDK
  client as ``tricktable bot NAME --server {address} --token {token}``
  (started through the lean :mod:`tournament.seat`).
- ``partners`` (partnership games only): ``"fixed"`` (default) - an entrant
  fills every seat of its side (one bot process per seat); ``"rotate"`` -
  an entrant fills one seat and every way of splitting a table's entrants
  into sides is played.
- ``max_deals``: a game still going after that many deals (random Cinq
  Cents bidders can fail contracts for ever) is stopped and adjudicated to
  the side(s) ahead (the in-process server gets the same deal limit; an
  external server applies its own). ``match_timeout_s`` bounds a match over
  the server.
- ``decision_ms`` and ``bank_ms``: the clocks of every table (server runner;
  the in-process runner counts a decision over ``decision_ms`` as a fault).
- ``games`` counts games per pairing; it is rounded up so that every deck set
  is played in every rotation (duplicate). ``deck_sets`` sets that count
  directly instead.
"""

from __future__ import annotations

import hashlib
import json
import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rules.errors import OptionsError
from rules.match import MAX_DEALS
from rules.registry import GAMES, game_rules

FORMATS: tuple[str, ...] = ("round_robin", "swiss", "gauntlet")
PARTNER_MODES: tuple[str, ...] = ("fixed", "rotate")
PLACEHOLDERS: tuple[str, ...] = ("address", "token", "seat", "name", "seed", "python", "tls_ca")


class ConfigError(ValueError):
    """The tournament configuration is invalid; the message names the field."""


@dataclass(frozen=True, slots=True, kw_only=True)
class EntrantSpec:
    """One entrant: a name and either a built-in ``bot`` or a ``command`` template."""

    name: str
    bot: str | None = None
    command: str | None = None

    def __post_init__(self) -> None:
        if not self.name or not isinstance(self.name, str):
            raise ConfigError("entrants: every entrant needs a non-empty name")
        if (self.bot is None) == (self.command is None):
            raise ConfigError(f"entrant {self.name!r}: give exactly one of 'bot' or 'command'")
        if self.command is not None:
            try:
                self.command.format(**{k: "" for k in PLACEHOLDERS})
            except (KeyError, IndexError, ValueError) as exc:
                raise ConfigError(f"entrant {self.name!r}: bad command template {self.command!r}: "
                                  f"unknown placeholder {exc} (placeholders: {', '.join(PLACEHOLDERS)})") from None
            if "{token}" not in self.command:
                raise ConfigError(f"entrant {self.name!r}: the command must contain {{token}}")


@dataclass(frozen=True, slots=True, kw_only=True)
class SprtSpec:
    """A sequential test "is ``a`` stronger than ``b``": H0 score ``score0`` against H1 ``score1``.

    Scores are ``a``'s expected pairwise score against ``b`` (0.5 = equal); the TOML may give
    ``elo0``/``elo1`` (Elo differences) instead.
    """

    a: str
    b: str
    score0: float = 0.5
    score1: float = 0.55
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not 0.0 < self.score0 < self.score1 < 1.0:
            raise ConfigError(f"sprt: need 0 < score0 < score1 < 1 (got {self.score0}, {self.score1})")
        if not (0.0 < self.alpha < 0.5 and 0.0 < self.beta < 0.5):
            raise ConfigError("sprt: alpha and beta must be in (0, 0.5)")
        if self.a == self.b:
            raise ConfigError("sprt: a and b must be different entrants")


@dataclass(frozen=True, slots=True, kw_only=True)
class TournamentConfig:
    """A validated tournament. ``options`` are the game's table options as given (the rules resolve defaults)."""

    name: str
    game: str
    options: Mapping[str, Any]
    entrants: tuple[EntrantSpec, ...]
    format: str = "round_robin"
    games: int = 2
    deck_sets: int | None = None
    seed: str = "tricktable"
    concurrency: int = 1
    partners: str = "fixed"
    rounds: int | None = None
    challenger: str | None = None
    forfeit_after: int = 3
    decision_ms: int | None = None
    bank_ms: int | None = None
    match_timeout_s: float = 600.0
    max_deals: int = MAX_DEALS
    sprt: SprtSpec | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise ConfigError(f"game: unknown game {self.game!r} (games: {', '.join(GAMES)})")
        try:
            game_rules(self.game).config(self.options)
        except OptionsError as exc:
            raise ConfigError(f"options: {exc}") from None
        if "first_dealer" in self.options:
            # Duplicate deals compare like with like only if the dealer comes from the deck seed too.
            raise ConfigError("options: first_dealer is drawn from each deck set's seed in a tournament; remove it")
        if self.format not in FORMATS:
            raise ConfigError(f"format: unknown format {self.format!r} (formats: {', '.join(FORMATS)})")
        if self.partners not in PARTNER_MODES:
            raise ConfigError(f"partners: must be one of {', '.join(PARTNER_MODES)} (got {self.partners!r})")
        names = [e.name for e in self.entrants]
        if len(set(names)) != len(names):
            raise ConfigError(f"entrants: names must be unique (got {names})")
        if len(names) < 2:
            raise ConfigError("entrants: a tournament needs at least two entrants")
        if self.games < 1 or (self.deck_sets is not None and self.deck_sets < 1):
            raise ConfigError("games and deck_sets must be at least 1")
        if self.concurrency < 1:
            raise ConfigError("concurrency must be at least 1")
        if self.forfeit_after < 1:
            raise ConfigError("forfeit_after must be at least 1")
        if self.max_deals < 1:
            raise ConfigError("max_deals must be at least 1")
        if self.rounds is not None and self.rounds < 1:
            raise ConfigError("rounds must be at least 1")
        if self.format == "gauntlet":
            if self.challenger is not None and self.challenger not in names:
                raise ConfigError(f"challenger: {self.challenger!r} is not an entrant")
        elif self.challenger is not None:
            raise ConfigError("challenger is only for the gauntlet format")
        if self.sprt is not None and not {self.sprt.a, self.sprt.b} <= set(names):
            raise ConfigError(f"sprt: {self.sprt.a!r} and {self.sprt.b!r} must both be entrants")
        if self.units_per_table > len(names):
            raise ConfigError(f"entrants: a {self.game} table needs {self.units_per_table} entrants "
                              f"(partners = {self.partners!r}); only {len(names)} given")

    # --- derived -------------------------------------------------------------

    @property
    def players(self) -> int:
        """Seats at a table."""
        return game_rules(self.game).config(self.options).players

    @property
    def sides(self) -> tuple[tuple[int, ...], ...]:
        """The seats of each side."""
        return game_rules(self.game).config(self.options).sides

    @property
    def is_partnership(self) -> bool:
        """Some side has more than one seat."""
        return any(len(side) > 1 for side in self.sides)

    @property
    def rotating_partners(self) -> bool:
        """Entrants fill single seats and partnerships rotate."""
        return self.partners == "rotate" and self.is_partnership

    @property
    def units_per_table(self) -> int:
        """Distinct entrants at one table: one per side, or one per seat when partners rotate."""
        return self.players if self.rotating_partners else len(self.sides)

    @property
    def effective_challenger(self) -> str:
        """The gauntlet's challenger: the ``challenger`` field, else the first entrant."""
        return self.challenger or self.entrants[0].name

    @property
    def swiss_rounds(self) -> int:
        """Rounds of a Swiss tournament: ``rounds``, else ceil(log2(entrants))."""
        return self.rounds or max(1, math.ceil(math.log2(len(self.entrants))))

    def entrant(self, name: str) -> EntrantSpec:
        """The entrant called ``name``."""
        for e in self.entrants:
            if e.name == name:
                return e
        raise KeyError(name)

    def to_json(self) -> dict[str, Any]:
        """The config as plain JSON values (stored with the tournament; compared on resume)."""
        data = asdict(self)
        data["options"] = dict(self.options)
        data["extra"] = dict(self.extra)
        return data

    def fingerprint(self) -> str:
        """SHA-256 of what decides the schedule and the results (not concurrency, which changes no result)."""
        data = self.to_json()
        data.pop("concurrency", None)
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


_KEYS = {"name", "game", "options", "entrants", "format", "games", "deck_sets", "seed", "concurrency", "partners",
         "rounds", "challenger", "forfeit_after", "decision_ms", "bank_ms", "match_timeout_s", "max_deals",
         "sprt", "extra"}


def elo_to_score(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger (logistic, 400-point scale)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def _typed(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], default: Any = None) -> Any:
    value = data.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) and kind in (int, float, (int, float)):
        raise ConfigError(f"{key}: expected a number, got a boolean")
    if not isinstance(value, kind):
        raise ConfigError(f"{key}: expected {getattr(kind, '__name__', kind)}, got {type(value).__name__}")
    return value


def _entrant(value: object, index: int) -> EntrantSpec:
    if isinstance(value, str):
        return EntrantSpec(name=value, bot=value)
    if not isinstance(value, Mapping):
        raise ConfigError(f"entrants[{index}]: expected a table with name and bot or command")
    unknown = set(value) - {"name", "bot", "command"}
    if unknown:
        raise ConfigError(f"entrants[{index}]: unknown key(s) {', '.join(sorted(unknown))}")
    bot = value.get("bot")
    name = value.get("name", bot)
    if not isinstance(name, str):
        raise ConfigError(f"entrants[{index}]: name must be a string")
    return EntrantSpec(name=name, bot=value.get("bot"), command=value.get("command"))


def config_from_mapping(data: Mapping[str, Any], *, default_name: str = "tournament") -> TournamentConfig:
    """Validate a parsed TOML table (or the same keys from flags).

    Raises:
        ConfigError: naming the bad field.
    """
    unknown = set(data) - _KEYS
    if unknown:
        raise ConfigError(f"unknown key(s) {', '.join(sorted(unknown))} (keys: {', '.join(sorted(_KEYS))})")
    game = _typed(data, "game", str)
    if game is None:
        raise ConfigError("game: missing")
    entrants_raw = data.get("entrants")
    if not isinstance(entrants_raw, Sequence) or isinstance(entrants_raw, str):
        raise ConfigError("entrants: expected a list ([[entrants]] tables or bot names)")
    sprt_raw = data.get("sprt")
    sprt = None
    if sprt_raw is not None:
        if not isinstance(sprt_raw, Mapping):
            raise ConfigError("sprt: expected a table with a and b")
        fields = dict(sprt_raw)
        for elo_key, score_key in (("elo0", "score0"), ("elo1", "score1")):
            if elo_key in fields:  # chess-style hypotheses: an Elo difference is an expected score
                if score_key in fields:
                    raise ConfigError(f"sprt: give {elo_key} or {score_key}, not both")
                fields[score_key] = elo_to_score(float(fields.pop(elo_key)))
        try:
            sprt = SprtSpec(**fields)
        except TypeError as exc:
            raise ConfigError(f"sprt: {exc}") from None
    options = _typed(data, "options", Mapping, {})
    return TournamentConfig(
        name=_typed(data, "name", str, default_name),
        game=game,
        options=dict(options),
        entrants=tuple(_entrant(e, i) for i, e in enumerate(entrants_raw)),
        format=_typed(data, "format", str, "round_robin"),
        games=_typed(data, "games", int, 2),
        deck_sets=_typed(data, "deck_sets", int, None),
        seed=str(_typed(data, "seed", (str, int), "tricktable")),
        concurrency=_typed(data, "concurrency", int, 1),
        partners=_typed(data, "partners", str, "fixed"),
        rounds=_typed(data, "rounds", int, None),
        challenger=_typed(data, "challenger", str, None),
        forfeit_after=_typed(data, "forfeit_after", int, 3),
        decision_ms=_typed(data, "decision_ms", int, None),
        bank_ms=_typed(data, "bank_ms", int, None),
        match_timeout_s=float(_typed(data, "match_timeout_s", (int, float), 600.0)),
        max_deals=_typed(data, "max_deals", int, MAX_DEALS),
        sprt=sprt,
        extra=dict(_typed(data, "extra", Mapping, {})),
    )


def entrant_names(specs: Sequence[str]) -> list[str]:
    """Names for bots given by spec: the spec itself, ``-2``, ``-3`` ... added when a spec comes again."""
    names: list[str] = []
    for spec in specs:
        label, n = spec, 2
        while label in names:
            label, n = f"{spec}-{n}", n + 1
        names.append(label)
    return names


def check_bots(config: TournamentConfig) -> None:
    """Load every ``bot`` entrant's bot once, before the first game: a typo must not play a tournament of forfeits.

    Why not in the config's own checks: a config is also read where its bots
    cannot be imported (tests with scripted dispatchers, a Ray head without
    the authors' modules).

    Raises:
        ConfigError: naming the entrant and what is wrong with its bot.
    """
    from bots import BotSpecError, bot_factory

    for entrant in config.entrants:
        if entrant.bot is not None:
            try:
                bot_factory(entrant.bot)
            except BotSpecError as exc:
                raise ConfigError(f"entrant {entrant.name!r}: {exc}") from None


def load_config(path: Path) -> TournamentConfig:
    """Read and validate a TOML tournament file; the name defaults to the file's stem.

    Raises:
        ConfigError: unreadable file, bad TOML or a bad field.
    """
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return config_from_mapping(data, default_name=path.stem)
