"""Check a game record by replaying it with the engine (docs/records.md, last paragraph).

A record is valid when replaying its ``actions`` from its decks under its
``options`` accepts every action in its turn and yields exactly the recorded
``hands``, ``turn_up``, ``trump``, ``tricks``, ``points``, ``scores`` and
``result``. :func:`verify_record` reports the *first* place where that fails,
in record order: the top-level fields, then deal by deal the fields fixed
by the deal itself (number, dealer, redeal, deck, hands, turn-up, kitty),
each action in turn, then the fields the play derives (trump, contract,
tricks, points, scores, bonus); finally the deal count and the result.

Choices:
- The order of cards within ``hands``, ``kitty`` and a ``discard`` carries
  no meaning (docs/records.md), so those compare as sorted lists; ``deck``,
  ``tricks`` and ``exposed`` compare in order.
- A field the engine does not write for this game (``contract`` outside
  Cinq Cents, say) is accepted when the record writes it as ``null``, and
  ``redeal`` absent equals ``false``; a field the engine writes must be in
  the record (``bonus`` on every Forty-Five deal, ``null`` included).
- ``result.reason`` is free text and only has to be a string; ``status``,
  ``winners`` and ``scores`` must match.
- An aborted record replays the actions it has; its last deal may stop part
  way, and a deal dealt just before the abort with no action yet may be
  listed or left out. Its ``result.scores`` are what the rules had scored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tricktable.rules.actions import Action, as_decided, describe
from tricktable.rules.cards import Card
from tricktable.rules.errors import OptionsError, RuleError
from tricktable.rules.game import DealState, GameConfig, GameRules, Result
from tricktable.rules.match import Match
from tricktable.rules.record import (
    ANNOTATION_KEY,
    GameRecord,
    RecordedDeal,
    RecordFieldError,
    action_to_json,
    parse_record,
)
from tricktable.rules.registry import game_rules
from tricktable.rules.shuffle import SeededDecks, seed_commitment


@dataclass(frozen=True, slots=True, kw_only=True)
class Discrepancy:
    """Where a record departs from the rules: the field path, what the engine expected, what the record says.

    ``deal`` is the 1-based position of the deal in ``deals`` and ``action``
    the 0-based index in that deal's ``actions``, when the field lies there.
    """

    field: str
    message: str
    expected: str | None = None
    recorded: str | None = None
    deal: int | None = None
    action: int | None = None

    def __str__(self) -> str:
        where: list[str] = []
        if self.deal is not None:
            where.append(f"deal {self.deal}")
        if self.action is not None:
            where.append(f"action {self.action}")
        head = f"{', '.join(where)}: " if where else ""
        text = f"{head}{self.field}: {self.message}"
        if self.expected is not None or self.recorded is not None:
            text += f" (expected {self.expected}; record says {self.recorded})"
        return text


_LOCATION = re.compile(r"^deals\[(\d+)\](?:\.actions\[(\d+)\])?")

#: Deal fields fixed when the deal is dealt, compared before its actions.
START_FIELDS: tuple[str, ...] = ("number", "dealer", "redeal", "deck", "hands", "turn_up", "kitty")
#: Fields the engine may omit for a game; the record may then write them as null (``redeal``: false).
OPTIONAL_FIELDS: dict[str, object] = {"turn_up": None, "kitty": None, "bonus": None, "contract": None,
                                      "redeal": False}
#: Fields whose list order carries no meaning.
UNORDERED_FIELDS: frozenset[str] = frozenset({"kitty"})


def _json(value: object) -> str:
    return json.dumps(value, separators=(", ", ": "), ensure_ascii=False)


def _found(field: str, message: str, expected: object = None, recorded: object = None, *,
           show: bool = True) -> Discrepancy:
    match = _LOCATION.match(field)
    deal = int(match.group(1)) + 1 if match else None
    action = int(match.group(2)) if match and match.group(2) is not None else None
    return Discrepancy(field=field, message=message, expected=_json(expected) if show else None,
                       recorded=_json(recorded) if show else None, deal=deal, action=action)


# --- comparing JSON values ---------------------------------------------------


def _same_scalar(a: object, b: object) -> bool:
    # Strict types: True is not 1, 1.0 is not 1.
    return type(a) is type(b) and a == b


def _normal(key: str, value: object) -> object:
    """A value put in its comparable form: unordered card lists sorted by card index."""
    if key in UNORDERED_FIELDS and isinstance(value, list):
        return sorted(value, key=_card_key)
    if key == "hands" and isinstance(value, dict):
        return {k: sorted(v, key=_card_key) if isinstance(v, list) else v for k, v in value.items()}
    return value


def _card_key(code: object) -> tuple[int, str]:
    try:
        return (Card.parse(code).index, "")  # type: ignore[arg-type]
    except ValueError:
        return (999, repr(code))


def _subpath(path: str, key: str) -> str:
    if not key.isidentifier():
        return f'{path}["{key}"]'
    return f"{path}.{key}" if path else key


def _diff(expected: object, recorded: object, path: str) -> Discrepancy | None:
    """The first difference between two JSON values, or None."""
    if isinstance(expected, dict):
        if not isinstance(recorded, dict):
            return _found(path, "differs", expected, recorded)
        for key, value in expected.items():
            sub = _subpath(path, key)
            if key not in recorded:
                return _found(sub, "missing from the record", value, "nothing")
            found = _diff(_normal(key, value), _normal(key, recorded[key]), sub)
            if found is not None:
                return found
        for key in recorded:
            if key not in expected:
                return _found(_subpath(path, key), "not a field of this record", None, recorded[key])
        return None
    if isinstance(expected, list):
        if not isinstance(recorded, list):
            return _found(path, "differs", expected, recorded)
        for i, (a, b) in enumerate(zip(expected, recorded, strict=False)):
            found = _diff(a, b, f"{path}[{i}]")
            if found is not None:
                if not isinstance(a, dict | list):
                    # A wrong element of a flat list (a hand, a deck, points): show the whole list.
                    return _found(path, f"differs at index {i}", expected, recorded)
                return found
        if len(expected) != len(recorded):
            return _found(path, f"expected {len(expected)} items, the record has {len(recorded)}",
                          expected, recorded)
        return None
    if not _same_scalar(expected, recorded):
        return _found(path, "differs", expected, recorded)
    return None


def _diff_fields(expected: Mapping[str, Any], recorded: Mapping[str, Any], keys: Sequence[str],
                 path: str) -> Discrepancy | None:
    for key in keys:
        sub = f"{path}.{key}"
        if key not in expected:
            value = recorded.get(key, OPTIONAL_FIELDS.get(key))
            if key in recorded and not _same_scalar(value, OPTIONAL_FIELDS.get(key, "absent")):
                return _found(sub, "this game has no such field", OPTIONAL_FIELDS.get(key), value)
            continue
        if key not in recorded:
            if key in OPTIONAL_FIELDS and _same_scalar(expected[key], False):
                continue
            return _found(sub, "missing from the record", expected[key], "nothing")
        found = _diff(_normal(key, expected[key]), _normal(key, recorded[key]), sub)
        if found is not None:
            return found
    return None


# --- replay ------------------------------------------------------------------


class _ReplayDecks:
    """The record's decks.

    Past the last one, or for a deck that is not a shuffle of the game's deck,
    the unshuffled deck stands in, so the replay goes on and reports the
    discrepancy in its place (a missing deal; ``deals[i].deck``).
    """

    def __init__(self, decks: Sequence[Sequence[Card]]) -> None:
        self.decks = [tuple(d) for d in decks]

    def deck(self, index: int, cards: Sequence[Card]) -> tuple[Card, ...]:
        ordered = tuple(sorted(cards, key=lambda c: c.index))
        if index < len(self.decks) and tuple(sorted(self.decks[index], key=lambda c: c.index)) == ordered:
            return self.decks[index]
        return ordered


def _check_deck(deck: Sequence[Card], config: GameConfig, path: str) -> Discrepancy | None:
    wanted = sorted(config.deck(), key=lambda c: c.index)
    if sorted(deck, key=lambda c: c.index) == wanted:
        return None
    counts: dict[Card, int] = {}
    for c in deck:
        counts[c] = counts.get(c, 0) + 1
    missing = [c.code for c in wanted if c not in counts]
    doubled = [c.code for c, n in counts.items() if n > 1]
    alien = [c.code for c in counts if c not in set(wanted)]
    problems = []
    if missing:
        problems.append(f"missing {' '.join(missing)}")
    if doubled:
        problems.append(f"repeated {' '.join(doubled)}")
    if alien:
        problems.append(f"not in this game's deck {' '.join(alien)}")
    return _found(path, f"not a shuffle of the {len(wanted)}-card deck of {config.game} ({'; '.join(problems)})",
                  show=False)


def _deal_of(match: Match, index: int) -> tuple[DealState, tuple[int, ...]]:
    """The state of the ``index``-th deal (0-based) and the totals before it."""
    if index < len(match.finished):
        return match.finished[index]
    return match.deal, match.scores_before


def _recorded_action_form(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The recorded action as the engine writes it: a discard's cards sorted, the bot's annotation left out."""
    form = dict(raw)
    form.pop(ANNOTATION_KEY, None)  # the server's addition (tricktable.rules.annotation): replaying ignores it
    if form.get("type") == "discard" and isinstance(form.get("cards"), list):
        form["cards"] = sorted(form["cards"], key=_card_key)
    return form


def _legal_summary(legal: Sequence[Action], shown: int = 12) -> str:
    """The legal actions for a message; a long list (a declarer's 8,008 discards) is cut."""
    text = ", ".join(describe(a) for a in legal[:shown])
    if len(legal) > shown:
        text += f", ... ({len(legal)} legal actions)"
    return f"one of: {text}"


def _replay_action(match: Match, index: int, record_deal: RecordedDeal, k: int) -> tuple[Match, Discrepancy | None]:
    path = f"deals[{index}].actions[{k}]"
    recorded = record_deal.actions[k]
    if len(match.finished) > index:
        why = "the deal and the match are over" if match.result is not None else "the deal is over"
        return match, _found(path, f"extra action: {why} after {k} actions", "no action", dict(recorded.raw))
    # A run's exposed cards are its result: replay the decision, then compare what it turned.
    action = as_decided(recorded.action)
    try:
        match.check(action, recorded.seat)
    except RuleError as exc:
        to_act = match.to_act
        expected = f"an action of seat {to_act}" if to_act != recorded.seat else _legal_summary(match.legal_actions())
        return match, Discrepancy(field=path, message=f"illegal action: {exc.code.value}: {exc.message}",
                                  expected=expected, recorded=_json(dict(recorded.raw)), deal=index + 1, action=k)
    match = match.apply(action, recorded.seat)
    state, _ = _deal_of(match, index)
    written = state.recorded_action(k)
    return match, _diff(_recorded_action_form(written), _recorded_action_form(recorded.raw), path)


def _replay_deal(match: Match, index: int, record_deal: RecordedDeal, config: GameConfig,
                 aborted_last: bool) -> tuple[Match, Discrepancy | None]:
    path = f"deals[{index}]"
    found = _check_deck(record_deal.deck, config, f"{path}.deck")
    if found is not None:
        return match, found
    state, before = _deal_of(match, index)
    start = state.to_record(before)
    found = _diff_fields(start, record_deal.raw, START_FIELDS, path)
    if found is not None:
        return match, found
    for k in range(len(record_deal.actions)):
        match, found = _replay_action(match, index, record_deal, k)
        if found is not None:
            return match, found
    state, before = _deal_of(match, index)
    if len(match.finished) <= index and not aborted_last:
        to_act = match.deal.to_act
        return match, _found(f"{path}.actions", f"missing actions: the deal is not over after "
                             f"{len(record_deal.actions)} actions; seat {to_act} is to act",
                             show=False)
    end = state.to_record(before)
    keys = [k for k in end if k not in START_FIELDS and k != "actions"]
    keys += [k for k in OPTIONAL_FIELDS if k not in keys and k not in START_FIELDS]
    return match, _diff_fields(end, record_deal.raw, keys, path)


def _check_top(record: GameRecord, rules: GameRules, config: GameConfig, first_dealer: int) -> Discrepancy | None:
    options = config.to_options()
    options["first_dealer"] = first_dealer
    for key, value in options.items():
        if key not in record.options:
            return _found(f"options.{key}", "missing: a record writes every option out", value, "nothing")
        if key == "first_dealer" and record.options[key] is None:
            return _found("options.first_dealer", "the record must write the seat drawn", value, None)
        found = _diff(value, record.options[key], f"options.{key}")
        if found is not None:
            return found
    if len(record.seats) != config.players:
        return _found("seats", f"expected one entry per seat ({config.players} players), "
                      f"the record has {len(record.seats)}", show=False)
    return _diff([list(s) for s in config.sides], [list(s) for s in record.sides], "sides")


def verify_record(data: object) -> Discrepancy | None:
    """Replay a loaded record (the value ``json.loads`` gave) and return its first discrepancy, or None if valid.

    Never raises for a bad record: a malformed field, unknown game, invalid
    options or an illegal action all come back as a :class:`Discrepancy`.
    """
    try:
        record = parse_record(data)
    except RecordFieldError as exc:
        return _found(exc.path or "record", exc.reason, show=False)
    try:
        rules = game_rules(record.game)
    except (OptionsError, ImportError) as exc:
        return _found("game", f"the engine cannot play {record.game!r}: {exc}", show=False)
    try:
        config = rules.config(record.options)
        if not record.deals:
            return _found("deals", "a record has at least one deal", show=False)
        match = Match.start(rules, record.options, _ReplayDecks([d.deck for d in record.deals]),
                            seed=record.seed)
    except OptionsError as exc:
        return _found("options", f"invalid options: {exc}", show=False)
    except (ValueError, IndexError) as exc:
        return _found("deals[0].deck", f"the first deal cannot be dealt: {exc}", show=False)
    found = _check_top(record, rules, config, match.first_dealer) or _check_commitment(data, record)
    if found is not None:
        return found
    aborted = record.result.status == "aborted"
    for index, record_deal in enumerate(record.deals):
        if match.result is not None and len(match.finished) <= index:
            return _found(f"deals[{index}]", f"extra deal: the match ended after deal {len(match.finished)}",
                          "no more deals", f"deal {record_deal.number}")
        match, found = _replay_deal(match, index, record_deal, config,
                                    aborted and index == len(record.deals) - 1)
        if found is not None:
            return found
    return _check_result(record, match)


def _check_commitment(data: object, record: GameRecord) -> Discrepancy | None:
    """A record that carries the table's commitment (``seed_sha256``, the server's): check it and the decks.

    The commitment must be :func:`tricktable.rules.shuffle.seed_commitment` of the
    recorded ``seed`` and ``salt``, and every deck must be the one the seed
    deals; otherwise the commitment would prove nothing about the cards.
    Records without ``seed_sha256`` (selfplay, explicit decks) are not checked here.
    """
    if not isinstance(data, Mapping) or "seed_sha256" not in data:
        return None
    salt, committed = data.get("salt"), data["seed_sha256"]
    if not isinstance(salt, str) or not isinstance(committed, str) or record.seed is None:
        return _found("salt", "a record with a seed_sha256 needs the salt and the seed it commits to (strings)",
                      show=False)
    return _diff(seed_commitment(record.seed, salt), committed, "seed_sha256") or check_seeded_decks(record)


def check_seeded_decks(record: GameRecord) -> Discrepancy | None:
    """Whether every deck of ``record`` is the one its ``seed`` deals (:class:`SeededDecks`).

    A replay checks the decks against the rules (a shuffle of the game's deck), not against the
    seed; this is the check that ties the cards to a published seed (a table's commitment, a
    tournament's deck set).
    """
    if record.seed is None:
        return _found("seed", "the record has no seed to check its decks against", show=False)
    decks = SeededDecks(record.seed)
    for index, deal in enumerate(record.deals):
        if tuple(deal.deck) != decks.deck(index, deal.deck):
            return _found(f"deals[{index}].deck", "not the deck the recorded seed deals", show=False)
    return None


def _check_result(record: GameRecord, match: Match) -> Discrepancy | None:
    recorded = record.result
    if recorded.status == "finished":
        if match.result is None:
            return _found("deals", f"missing deal: the match is not over after deal {len(record.deals)} "
                          f"(scores {list(match.scores_before)})", show=False)
        expected = match.result
    else:
        if match.result is not None:
            return _found("result.status", f"the match ended after deal {len(match.finished)}",
                          "finished", "aborted")
        expected = Result(status="aborted", winners=(), scores=match.scores, reason=recorded.reason)
    for key, want, got in (("status", expected.status, recorded.status),
                           ("winners", list(expected.winners), list(recorded.winners)),
                           ("scores", list(expected.scores), list(recorded.scores))):
        found = _diff(want, got, f"result.{key}")
        if found is not None:
            return found
    return None


def action_json(seat: int, action: Action) -> dict[str, Any]:
    """A recorded action as a dict with its seat first (helper for tests and tools)."""
    return {"seat": seat, **action_to_json(action)}
