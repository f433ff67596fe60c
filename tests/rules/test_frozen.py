"""``evolve``: the engine's copy of an immutable state, equal to ``dataclasses.replace`` and as strict."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import pytest

from tests.games_support import LAYOUTS, layout_id, random_match
from tricktable.rules.frozen import evolve
from tricktable.rules.match import Match
from tricktable.rules.registry import new_match


@pytest.mark.parametrize("layout", LAYOUTS, ids=layout_id)
def test_evolve_copies_a_state_equal_to_dataclasses_replace(layout: tuple[str, dict[str, object]]) -> None:
    game, options = layout
    match = random_match(game, options, seed="evolve", max_actions=17)
    states: tuple[tuple[Any, dict[str, Any]], ...] = ((match, {"scores_before": (-7,)}), (match.deal, {"number": 99}))
    for state, changes in states:
        copied = evolve(state, **changes)
        assert copied == dataclasses.replace(state, **changes)
        assert copied is not state and state != copied


@dataclass(frozen=True, slots=True)
class _One:
    value: int


def test_evolve_copies_a_state_of_one_field() -> None:
    assert evolve(_One(1), value=2) == _One(2) and evolve(_One(3)) == _One(3)


def test_evolve_refuses_a_field_the_state_does_not_have() -> None:
    match = new_match("twenty_five", {}, seed="evolve")
    with pytest.raises(TypeError, match="no field 'dael'"):
        evolve(match, dael=match.deal)


@dataclass(frozen=True, slots=True)
class _Checked:
    value: int

    def __post_init__(self) -> None:
        if self.value < 0:
            raise ValueError("negative")


def test_evolve_refuses_a_class_whose_init_validates() -> None:
    with pytest.raises(TypeError, match="without __post_init__"):
        evolve(_Checked(1), value=-1)


def test_a_match_checks_an_action_once_when_it_applies_it(monkeypatch: pytest.MonkeyPatch) -> None:
    match = new_match("twenty_five", {}, seed="evolve")
    deal_class = type(match.deal)
    calls: list[object] = []
    check = deal_class.check

    def counted(self: object, *args: object) -> None:
        calls.append(args)
        check(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(deal_class, "check", counted)
    after = match.apply(match.legal_actions()[0])
    assert isinstance(after, Match) and len(calls) == 1
