"""A client with switchable faults, to show that ``tricktable conformance`` fails what it should.

Usage: ``python -m tests.conformance.scripted_client MODE`` with the address and
token in ``TRICKTABLE_SERVER`` / ``TRICKTABLE_TOKEN``. Modes:

- ``good``: plays the first legal action, answers again after a rejection,
  resumes with the last sequence seen (it must pass every situation);
- ``ignore-rejection``: does nothing after a rejection;
- ``fresh-rejoin``: reconnects after a drop but without ``last_seen_sequence``;
- ``no-reconnect``: exits 1 when the stream breaks;
- ``slow-first``: answers its first decision only after 0.8 s;
- ``quit-early``: exits 0 after its first accepted decision;
- ``quit-after-default``: exits 0 once the server played a default action for its seat.

It never annotates, and given several tokens (``play-many``) it plays each on
a Play stream of its own, never on one ``PlayMany`` call.
"""

from __future__ import annotations

import asyncio
import os
import sys

import grpc

from tricktable.protocol.generated.tricktable.v1 import table_service_pb2 as pb
from tricktable.protocol.generated.tricktable.v1 import table_service_pb2_grpc as pb_grpc

MODES = ("good", "ignore-rejection", "fresh-rejoin", "no-reconnect", "slow-first", "quit-early",
         "quit-after-default")


async def play(mode: str, address: str, token: str) -> int:
    last_seen: int | None = None
    answered = 0
    async with grpc.aio.insecure_channel(address) as channel:
        stub = pb_grpc.TableServiceStub(channel)
        for _attempt in range(10):
            call = stub.Play()  # type: ignore[call-arg]  # grpc-stubs: the iterator is optional
            join = pb.Join(token=token)
            if last_seen is not None and mode != "fresh-rejoin":
                join.last_seen_sequence = last_seen
            await call.write(pb.PlayRequest(join=join))
            pending: pb.DecisionRequest | None = None
            try:
                while True:
                    message = await call.read()
                    if message is grpc.aio.EOF:  # type: ignore[attr-defined]
                        break
                    assert isinstance(message, pb.PlayResponse)
                    kind = message.WhichOneof("kind")
                    if kind == "joined" and last_seen is None:
                        last_seen = message.joined.sequence
                    elif kind == "event":
                        last_seen = max(last_seen or 0, message.event.sequence)
                        if message.event.WhichOneof("kind") == "game_ended":
                            return 0
                        if message.event.WhichOneof("kind") == "action_timed_out" and mode == "quit-after-default":
                            return 0
                    elif kind == "decision":
                        pending = message.decision
                        if mode == "slow-first" and answered == 0:
                            await asyncio.sleep(0.8)
                        answered += 1
                        await call.write(pb.PlayRequest(decide=pb.Decide(
                            decision_id=pending.decision_id, action_id=pending.legal_actions[0].id)))
                    elif kind == "accepted" and mode == "quit-early":
                        return 0
                    elif kind == "rejection" and mode != "ignore-rejection" and pending is not None:
                        rejection = message.rejection
                        if (rejection.decision_id == pending.decision_id
                                and rejection.reason != pb.REJECTION_REASON_STALE_DECISION):
                            await call.write(pb.PlayRequest(decide=pb.Decide(
                                decision_id=pending.decision_id, action_id=pending.legal_actions[0].id)))
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE or mode == "no-reconnect":
                    return 1
            finally:
                call.cancel()
            await asyncio.sleep(0.1)
    return 1


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else "good"
    if mode not in MODES:
        print(f"unknown mode {mode!r}", file=sys.stderr)
        return 2
    return asyncio.run(play_all(mode, os.environ["TRICKTABLE_SERVER"], os.environ["TRICKTABLE_TOKEN"].split(",")))


async def play_all(mode: str, address: str, tokens: list[str]) -> int:
    """Every seat at once, each on its own stream; the worst exit status."""
    return max(await asyncio.gather(*(play(mode, address, token) for token in tokens)))


if __name__ == "__main__":
    sys.exit(main())
