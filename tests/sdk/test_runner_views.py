"""A bot on the runner gets, at each of its decisions, exactly the view the rules give its seat.

The runner decodes a decision with everything it kept (the table's options
from its Joined view, the history up to its last decision, the memos of
actions, tricks and history entries): whole matches of every game, each
seat fed the messages the server writes for it (``server.wire``), its
views compared with the rules' own. Decoding must never change what a bot
receives, only what it costs.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from tricktable.client_sdk.runner import SeatSession, _SeatLoop
from tricktable.protocol import convert
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2
from tricktable.rules.actions import Action
from tricktable.rules.game import SeatView
from tricktable.rules.registry import new_match
from tricktable.server.events import DecisionRequested
from tricktable.server.wire import decision_to_proto


class _Recorder:
    """A bot that keeps every view it is given and plays the action it is told to."""

    def __init__(self) -> None:
        self.views: list[SeatView] = []
        self.answer: Action | None = None

    def choose_action(self, view: SeatView) -> Action:
        self.views.append(view)
        assert self.answer is not None
        return self.answer


def _as_the_wire_tells(view: SeatView) -> SeatView:
    """Options without None values and extras through JSON: what any decoding of the wire gives."""
    return replace(view, options={k: v for k, v in view.options.items() if v is not None},
                   extras={k: json.loads(json.dumps(v)) for k, v in view.extras.items()})


async def _play_through_runners(game: str, options: dict[str, Any], seed: str, max_moves: int) -> int:
    match = new_match(game, options, seed=seed)
    players = match.config.players
    bots = [_Recorder() for _ in range(players)]

    async def send(request: table_service_pb2.PlayRequest) -> None:
        return None

    loops = [_SeatLoop(bots[seat], SeatSession(token=f"t{seat}"), send, max_reasks=1) for seat in range(players)]
    for seat, loop in enumerate(loops):
        await loop.handle(table_service_pb2.PlayResponse(joined=table_service_pb2.Joined(
            table_id="t", seat=seat, view=convert.view_to_proto(match.view(seat)))))
    moves = 0
    while not match.is_over and moves < max_moves:
        to_act = match.to_act
        assert to_act is not None
        seat = to_act
        legal = tuple(match.legal_actions())
        answer = bots[seat].answer = legal[moves * 7 % len(legal)]
        request = decision_to_proto(DecisionRequested(decision_id=moves + 1, seat=seat, legal_actions=legal,
                                                      view=match.view(seat), deadline=0.0, bank_seconds=0.0))
        wire = table_service_pb2.PlayResponse.FromString(
            table_service_pb2.PlayResponse(decision=request).SerializeToString())
        await loops[seat].handle(wire)
        assert bots[seat].views[-1] == _as_the_wire_tells(match.view(seat))
        match = match.apply(answer, seat)
        moves += 1
    return moves


@pytest.mark.parametrize(("game", "options"), [
    ("twenty_five", {}), ("twenty_five", {"players": 6, "sides": 3}), ("forty_five", {"jink": True}),
    ("all_fives", {"players": 3, "target": 31}), ("cinq_cents", {"target": 200}),
])
async def test_every_view_a_bot_gets_through_the_runner_is_the_rules_view_of_its_seat(
        game: str, options: dict[str, Any]) -> None:
    for number in range(3):
        assert await _play_through_runners(game, options, f"runner-views-{game}-{number}", max_moves=400) > 20
