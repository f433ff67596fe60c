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
    command = "python my_bot.py --server {address} --token-file {token_file}"

Choices:
- An entrant is either a bot (``bot``: a built-in name, ``module:Class`` or
  ``path/to/file.py:Class``; :func:`check_bots` loads each before a run) or
  a command template (any language) with the placeholders ``{address}``,
  ``{token_file}`` (``/dev/fd/N``: the seat's token is on a descriptor, never
  on the command line), ``{token_fd}``, ``{seat}``, ``{name}``, ``{seed}``,
  ``{python}`` (this interpreter) and ``{tls_ca}`` (the ``--tls-ca`` file,
  empty without TLS or in a sandbox); ``files`` lists more paths its sandbox
  may read; ``long_lived`` (a bot's default) has one process play many
  matches, never two tables of one deck set (a command opts in and reads its
  seats from ``{control_fd}``, :mod:`tricktable.tournament.control`). A
  built-in bot over the server runs as its own process, the same SDK client
  as ``tricktable bot NAME --server {address} --token-file {token_file}``
  (started through the lean :mod:`tricktable.tournament.seat`). Entrants are
  :class:`tricktable.tournament.entrants.EntrantSpec`.
- ``partners`` (partnership games only): ``"fixed"`` (default) - an entrant
  fills every seat of its side (one bot process per seat); ``"rotate"`` -
  an entrant fills one seat and every way of splitting a table's entrants
  into sides is played.
- ``max_deals``: a game still going after that many deals (random Cinq
  Cents bidders can fail contracts for ever) is stopped and adjudicated to
  the side(s) ahead (the in-process server gets the same deal limit; an
  external server applies its own). ``match_timeout_s`` bounds a match over
  the server.
- ``database_patience_s``: how long a running tournament waits for a
  database it can not reach (a PostgreSQL restart), retrying, before it
  stops for ``--resume``; not part of the fingerprint (a resume may change it).
- ``decision_ms`` and ``bank_ms``: the clocks of every table (server runner;
  the in-process runner counts a decision over ``decision_ms`` as a fault).
- ``games`` counts games per pairing; it is rounded up so that every deck set
  is played in every rotation (duplicate). ``deck_sets`` sets that count
  directly instead.

The fields are a pydantic model: its JSON Schema is published as
``docs/tournament.schema.json`` (``python -m tricktable.tournament.config`` prints it,
``make schemas`` writes it, a test keeps the file up to date), so editors and other languages can check
a file before a run. Every error is one line naming the field
(:class:`ConfigError`).
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
    field_validator,
    model_validator,
)

from tricktable.rules.errors import OptionsError
from tricktable.rules.match import MAX_DEALS
from tricktable.rules.registry import game_rules, games
from tricktable.server.record_store import POSTGRES_SCHEMES
from tricktable.tournament.entrants import FORFEIT_AFTER, EntrantSpec

Format = Literal["round_robin", "swiss", "gauntlet"]
PartnerMode = Literal["fixed", "rotate"]
FORMATS: tuple[str, ...] = get_args(Format)

AtLeastOne = Annotated[StrictInt, Field(ge=1)]
#: Seconds a running tournament waits for an unreachable database by default (``database_patience_s``).
DATABASE_PATIENCE_S = 300.0


class ConfigError(ValueError):
    """The tournament configuration is invalid; the message is one line that names the field."""


def elo_to_score(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger (logistic, 400-point scale)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def _registered_games(schema: dict[str, Any]) -> None:
    """The schema's ``game`` is one of the registry's games as they are when the schema is made, not at import."""
    schema["enum"] = list(games())


def _entrant_shorthand(value: object) -> object:
    """A bare bot spec is an entrant of that name; a table without ``name`` is named after its bot."""
    if isinstance(value, str):
        return {"name": value, "bot": value}
    if isinstance(value, Mapping) and "name" not in value and isinstance(value.get("bot"), str):
        return {**value, "name": value["bot"]}
    return value


def _entrants_shorthand(value: object) -> object:
    if isinstance(value, list | tuple):
        return [_entrant_shorthand(v) for v in value]
    return value


def _seed_text(value: object) -> object:
    """An integer seed is its decimal text (TOML ``seed = 7``); the seed is hashed as text."""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else value


Entrants = Annotated[tuple[EntrantSpec, ...], BeforeValidator(
    _entrants_shorthand, json_schema_input_type=list[EntrantSpec | str])]
Seed = Annotated[StrictStr, BeforeValidator(_seed_text, json_schema_input_type=str | int)]


class SprtSpec(BaseModel):
    """A sequential test "is ``a`` stronger than ``b``": H0 score ``score0`` against H1 ``score1``.

    Scores are ``a``'s expected pairwise score against ``b`` (0.5 = equal); the TOML may give
    ``elo0``/``elo1`` (Elo differences) instead.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, title="Sprt", json_schema_extra={
        "description": "A sequential test: is a stronger than b? Scores are a's expected score against b "
                       "(0.5 = equal); elo0/elo1 give the hypotheses as Elo differences instead."})

    a: StrictStr = Field(description="The entrant tested as the stronger.")
    b: StrictStr = Field(description="The entrant it is compared with.")
    score0: StrictFloat = Field(default=0.5, description="H0: a's expected score against b.")
    score1: StrictFloat = Field(default=0.55, description="H1: a's expected score against b.")
    alpha: StrictFloat = Field(default=0.05, description="False positive rate, in (0, 0.5).")
    beta: StrictFloat = Field(default=0.05, description="False negative rate, in (0, 0.5).")
    # Input only: converted to score0/score1 before validation, so stored configs and fingerprints hold scores.
    elo0: StrictFloat | None = Field(default=None, exclude=True, description="H0 as an Elo difference (not score0).")
    elo1: StrictFloat | None = Field(default=None, exclude=True, description="H1 as an Elo difference (not score1).")

    @model_validator(mode="before")
    @classmethod
    def _elo_to_scores(cls, data: Any) -> Any:
        if not isinstance(data, Mapping):
            return data
        fields = dict(data)
        for elo_key, score_key in (("elo0", "score0"), ("elo1", "score1")):
            elo = fields.pop(elo_key, None)
            if elo is None:
                continue
            if score_key in fields:
                raise ValueError(f"give {elo_key} or {score_key}, not both")
            if isinstance(elo, bool) or not isinstance(elo, int | float):
                raise ValueError(f"{elo_key}: expected a number")
            fields[score_key] = elo_to_score(float(elo))
        return fields

    @model_validator(mode="after")
    def _consistent(self) -> SprtSpec:
        if not 0.0 < self.score0 < self.score1 < 1.0:
            raise ValueError(f"need 0 < score0 < score1 < 1 (got {self.score0}, {self.score1})")
        if not (0.0 < self.alpha < 0.5 and 0.0 < self.beta < 0.5):
            raise ValueError("alpha and beta must be in (0, 0.5)")
        if self.a == self.b:
            raise ValueError("a and b must be different entrants")
        return self


class TournamentConfig(BaseModel):
    """A validated tournament. ``options`` are the game's table options as given (the rules resolve defaults)."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="Tricktable tournament", json_schema_extra={
        "description": "A tournament file (TOML) for `tricktable tournament FILE.toml`; the README's "
                       "Tournaments section explains formats, duplicate decks and runners."})

    name: StrictStr = Field(min_length=1, description=(
        "The tournament's name (default: the file's stem); --resume continues the tournament of this name."))
    game: StrictStr = Field(json_schema_extra=_registered_games, description="The game (docs/games.md).")
    options: dict[str, Any] = Field(default_factory=dict, description=(
        "The game's table options (docs/games.md), except first_dealer, which each deck set's seed draws."))
    entrants: Entrants = Field(description=(
        "At least two: a bot spec (a built-in name, module:Class or path/to/file.py:Class), "
        "or a table with name and bot or command."))
    format: Format = Field(default="round_robin", description="How entrants are paired.")
    games: AtLeastOne = Field(default=2, description=(
        "Games per pairing (per round in Swiss), rounded up to whole duplicate sets."))
    deck_sets: AtLeastOne | None = Field(default=None, description="Deck sets per pairing, instead of games.")
    seed: Seed = Field(default="tricktable", description="The same seed gives the same decks and pairings.")
    concurrency: AtLeastOne = Field(default=1, description="Matches at once (capped by the cores).")
    partners: PartnerMode = Field(default="fixed", description=(
        "Partnership games: fixed (an entrant fills every seat of its side) "
        "or rotate (one seat each; every split into sides is played)."))
    rounds: AtLeastOne | None = Field(default=None, description="Swiss rounds (default: ceil(log2(entrants))).")
    challenger: StrictStr | None = Field(default=None, description=(
        "Gauntlet only: the entrant who meets every other (default: the first)."))
    forfeit_after: AtLeastOne = Field(default=FORFEIT_AFTER, description=(
        "Crashes or timeouts of one bot in one match before it forfeits the match."))
    decision_ms: AtLeastOne | None = Field(default=None, description="Each table's decision clock, in milliseconds.")
    bank_ms: Annotated[StrictInt, Field(ge=0)] | None = Field(default=None, description=(
        "Each seat's time bank, in milliseconds."))
    match_timeout_s: StrictFloat = Field(default=600.0, gt=0, description=(
        "Bound on one match over the server, in seconds."))
    database_patience_s: StrictFloat = Field(default=DATABASE_PATIENCE_S, gt=0, description=(
        "Seconds a running tournament waits for its database when it can not be reached (a PostgreSQL "
        "restart, a cut connection), retrying with backoff, before it stops for --resume."))
    max_deals: AtLeastOne = Field(default=MAX_DEALS, description=(
        "A game still going after this many deals is adjudicated to the side(s) ahead."))
    sprt: SprtSpec | None = Field(default=None, description="Stop early when a sequential test decides a versus b.")
    extra: dict[str, Any] = Field(default_factory=dict, description="Free-form values kept with the tournament.")
    # Where the tournament is kept, not what it is: left out of the stored config and of its fingerprint.
    database_url: StrictStr | None = Field(default=None, exclude=True, description=(
        "Keep the tournament in this PostgreSQL database (postgresql://USER@HOST/DB; needs the postgres extra) "
        "instead of the server's SQLite file; --database-url and $TRICKTABLE_DATABASE_URL override it. Never "
        "stored with the tournament nor compared on --resume."))

    @field_validator("game")
    @classmethod
    def _known_game(cls, game: str) -> str:
        if game not in games():
            raise ValueError(f"unknown game {game!r} (games: {', '.join(games())})")
        return game

    @field_validator("database_url")
    @classmethod
    def _postgres_url(cls, url: str | None) -> str | None:
        if url is not None and not url.startswith(POSTGRES_SCHEMES):
            scheme = url.partition(":")[0]  # only the scheme: the rest may hold a password
            raise ValueError(f"must begin with {' or '.join(POSTGRES_SCHEMES)}, not {scheme}:")
        return url

    @model_validator(mode="after")
    def _consistent(self) -> TournamentConfig:
        """Checks across fields; each message starts with the field it blames."""
        try:
            game_rules(self.game).config(self.options)
        except OptionsError as exc:
            raise ValueError(f"options: {exc}") from None
        if "first_dealer" in self.options:
            # Duplicate deals compare like with like only if the dealer comes from the deck seed too.
            raise ValueError("options: first_dealer is drawn from each deck set's seed in a tournament; remove it")
        names = [e.name for e in self.entrants]
        if len(set(names)) != len(names):
            raise ValueError(f"entrants: names must be unique (got {names})")
        if len(names) < 2:
            raise ValueError("entrants: a tournament needs at least two entrants")
        if self.format == "gauntlet":
            if self.challenger is not None and self.challenger not in names:
                raise ValueError(f"challenger: {self.challenger!r} is not an entrant")
        elif self.challenger is not None:
            raise ValueError("challenger: only for the gauntlet format")
        if self.sprt is not None and not {self.sprt.a, self.sprt.b} <= set(names):
            raise ValueError(f"sprt: {self.sprt.a!r} and {self.sprt.b!r} must both be entrants")
        if self.units_per_table > len(names):
            raise ValueError(f"entrants: a {self.game} table needs {self.units_per_table} entrants "
                             f"(partners = {self.partners!r}); only {len(names)} given")
        return self

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
        """The config as plain JSON values (stored with the tournament; compared on resume).

        An entrant's ``files`` is left out when empty, and ``long_lived`` when unset, so configs written before
        they existed keep their fingerprint.
        """
        data = self.model_dump(mode="json")
        for entrant in data["entrants"]:
            if not entrant.get("files"):
                entrant.pop("files", None)
            if entrant.get("long_lived") is None:
                entrant.pop("long_lived", None)
        return data

    def fingerprint(self) -> str:
        """SHA-256 of what decides the schedule and the results (not concurrency nor the database's patience,
        which change no result: a resume may change them)."""
        data = self.to_json()
        data.pop("concurrency", None)
        data.pop("database_patience_s", None)
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()



def _location(loc: tuple[int | str, ...]) -> str:
    """``("entrants", 0, "command")`` as ``entrants[0].command``."""
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else f".{part}" if text else str(part)
    return text


# pydantic's wording where it would speak Python (tuple, dictionary, dataclass) to someone writing TOML.
_TOML_WORDS = {
    "tuple_type": "expected a list",
    "dict_type": "expected a table",
    "model_type": "expected a table",
    "dataclass_type": "expected a bot spec or a table with name and bot or command",
}


def _describe(exc: ValidationError) -> str:
    """Every problem on one line, each led by the field it is about."""
    problems = []
    for error in exc.errors():
        where = _location(error["loc"])
        message = _TOML_WORDS.get(error["type"]) or str(error["msg"]).removeprefix("Value error, ")
        if error["type"] in ("extra_forbidden", "unexpected_keyword_argument"):
            keys = TournamentConfig.model_fields if len(error["loc"]) == 1 else None
            message = "unknown key" + (f" (keys: {', '.join(sorted(keys))})" if keys else "")
        problems.append(f"{where}: {message}" if where else message)
    return "; ".join(problems)


def config_from_mapping(data: Mapping[str, Any], *, default_name: str = "tournament") -> TournamentConfig:
    """Validate a parsed TOML table (or the same keys from flags, or a stored config's JSON).

    Raises:
        ConfigError: naming the bad field(s), on one line.
    """
    try:
        return TournamentConfig.model_validate({"name": default_name, **data})
    except ValidationError as exc:
        raise ConfigError(_describe(exc)) from None


def check_bots(config: TournamentConfig) -> None:
    """Load and make every ``bot`` entrant's bot once, before the first game: a typo must not play a tournament of
    forfeits (a program or a URL is checked, not started).

    Why not in the config's own checks: a config is also read where its bots
    cannot be imported (tests with scripted dispatchers, a Ray head without
    the authors' modules).

    Raises:
        ConfigError: naming the entrant and what is wrong with its bot.
    """
    from tricktable.bots import EXEC_PREFIX, WEBHOOK_PREFIX, BotSpecError, bot_factory

    for entrant in config.entrants:
        if entrant.bot is not None:
            try:
                factory = bot_factory(entrant.bot)
                if not entrant.bot.startswith((EXEC_PREFIX, WEBHOOK_PREFIX)):
                    factory(None)  # a class that cannot be made says so now, not as seats that never join
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


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a tournament file (what :func:`config_from_mapping` accepts), as published in docs/."""
    schema = TournamentConfig.model_json_schema(mode="validation")
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema}


def schema_text() -> str:
    """:func:`json_schema` as the committed file's text (stable: a test compares it with docs/)."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":  # prints the schema; make schemas writes docs/tournament.schema.json
    sys.stdout.write(schema_text())
