"""Play a toy-game table over a real server, on protocol code generated from a copy of the protos with its entries.

Run by ``tests/docs/test_adding_a_game_wire.py`` in a process of its own:
``python -m tests.docs.toy_wire_table GENERATED_DIR DATA_DIR``. The process
takes the steps of docs/adding-a-game.md as a real game would have them at
import: the registry line (step 3) and the protocol code generated after
``make protos`` wrote the game's entries (step 4, done by the test in its
copy of the protos). It then serves on 127.0.0.1 port 0, creates a
three-player table with typed options, seats three random bots of the SDK,
each on its own connection, and prints what the game, the wire and the
record said, as one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any


def _use_generated(generated: Path) -> None:
    """Step 4: the protocol's code is the one generated from the protos with the toy's entries."""
    import tricktable.protocol.generated as package

    package.__path__ = [str(generated)]


def _register_toy() -> None:
    """Step 3: the toy's registry line, the one step that makes a game known (every module asks the registry)."""
    from tests.server.toy_game import REGISTRY_ENTRY
    from tricktable.rules import registry

    registry.GAME_MODULES["toy"] = REGISTRY_ENTRY


def _import_the_house() -> None:
    """The protocol, the server, the SDK, the records and the tournament's configuration, loaded before step 3.

    A plugin registers its game after these are imported; none of them may have kept a list of the games.
    """
    import tricktable.client_sdk.runner
    import tricktable.protocol.convert
    import tricktable.rules.record
    import tricktable.server.app
    import tricktable.tournament.config  # noqa: F401


async def _play(data_dir: Path) -> dict[str, Any]:
    from tests.live_server import running_server
    from tricktable.bots.random_bot import RandomBot
    from tricktable.client_sdk.runner import create_table, get_record, run_bot_async
    from tricktable.protocol import convert
    from tricktable.server.clocks import TimeControl

    clocks = TimeControl(decision_seconds=10.0, bank_seconds=10.0, grace_seconds=5.0, join_seconds=30.0)
    options = {"players": 3, "target": 2}
    async with running_server(data_dir, clocks) as server:
        table = await create_table(server.address, game="toy", options=options, seed="wire",
                                   seat_names=["a", "b", "c"])
        results = await asyncio.gather(*(run_bot_async(RandomBot(seat), server.address, token=token, seed=seat)
                                          for seat, token in enumerate(table.tokens)))
        record = json.loads(await get_record(server.address, table.table_id))
    return {
        "game_value": int(convert.game_to_proto("toy")),
        "typed_options": convert.options_to_proto("toy", options).WhichOneof("game_options"),
        "results": [{"status": r.status, "winners": list(r.winners), "scores": list(r.scores)} for r in results],
        "record": {"game": record["game"], "options": record["options"], "deals": len(record["deals"]),
                   "result": record["result"]},
    }


def main(argv: list[str]) -> int:
    """Play the table and print the outcome (JSON on stdout)."""
    _use_generated(Path(argv[0]))
    _import_the_house()
    _register_toy()
    print(json.dumps(asyncio.run(_play(Path(argv[1])))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
