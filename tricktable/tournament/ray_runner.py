"""Matches as Ray tasks (optional extra ``tricktable[ray]``): each task runs a table and its bots on a worker.

``tricktable tournament CONFIG --ray ADDRESS`` connects to a Ray cluster
(``auto``: the cluster this machine belongs to; ``ray://host:10001``: a
remote head; ``local``: start a private instance on this machine) and sends
each match as one task. The task returns the outcome (record included); the
tournament process stores it, so storage, resume and reports are the same as
for a local run.

On the worker a task plays the match one of two ways:

- ``--runner local`` with built-in bots: the in-process runner (rules engine
  as the table, bots in the worker's process) - the fast path;
- otherwise: a gRPC server started in the task on a free port of the worker,
  the bots as separate processes on that worker, exactly as
  :class:`tricktable.tournament.server_runner.ServerDispatcher` plays locally.

The workers need the ``tricktable`` package importable (installed on the
cluster's nodes, or shipped with a Ray ``runtime_env``); the tasks ask for
one CPU each, so the cluster's CPUs bound the concurrency.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

from tricktable.tournament.config import TournamentConfig, config_from_mapping
from tricktable.tournament.runner import LocalRunner, MatchOutcome
from tricktable.tournament.schedule import MatchSpec


def play_on_worker(spec_json: dict[str, Any], config_json: dict[str, Any], local: bool) -> dict[str, Any]:
    """The body of a Ray task: play one match on this machine and return the outcome as JSON values."""
    config = config_from_mapping(config_json)
    spec = MatchSpec.from_json(spec_json)
    if local:
        runner = LocalRunner(forfeit_after=config.forfeit_after, decision_ms=config.decision_ms,
                             max_deals=config.max_deals)
        return runner.run(spec, {e.name: e for e in config.entrants}).to_json()
    return asyncio.run(_play_with_server(spec, config)).to_json()


async def _play_with_server(spec: MatchSpec, config: TournamentConfig) -> MatchOutcome:
    from tricktable.server.logging import configure
    from tricktable.tournament.server_runner import ServerDispatcher

    configure(level="WARNING")  # a worker process of our own: keep the server's per-call logs out of Ray's
    with tempfile.TemporaryDirectory(prefix="tricktable-ray-") as tmp:
        dispatcher = await ServerDispatcher.open(config, address=None, data_dir=Path(tmp))
        try:
            return await dispatcher.play(spec)
        finally:
            await dispatcher.close()


class RayDispatcher:
    """Sends matches to Ray; ``slots`` (the cluster's CPUs) is how many the engine keeps in flight."""

    def __init__(self, config: TournamentConfig, remote: Any, slots: int, *, local: bool, owns: bool) -> None:
        self.config = config
        self._remote = remote
        self.slots = slots
        self.local = local
        self._owns = owns
        self._config_json = config.to_json()

    @classmethod
    def connect(cls, config: TournamentConfig, address: str, *, local: bool) -> RayDispatcher:
        """Connect to (or, for ``local``, start) a Ray cluster.

        Raises:
            RuntimeError: Ray is not installed (``pip install 'tricktable[ray]'``).
        """
        try:
            import ray
        except ImportError:
            raise RuntimeError("Ray is not installed: pip install 'tricktable[ray]'") from None
        owns = not ray.is_initialized()
        if owns:
            if address == "local":
                ray.init(include_dashboard=False, log_to_driver=False, configure_logging=False)
            else:
                ray.init(address=address, log_to_driver=False, configure_logging=False)
        remote = ray.remote(num_cpus=1, max_retries=0)(play_on_worker)
        slots = max(1, int(ray.cluster_resources().get("CPU", 1)))  # type: ignore[no-untyped-call,unused-ignore]
        return cls(config, remote, slots, local=local, owns=owns)

    async def play(self, spec: MatchSpec) -> MatchOutcome:
        """Run the match as a task and await its outcome."""
        ref = self._remote.remote(spec.to_json(), self._config_json, self.local)
        data: dict[str, Any] = await ref
        return MatchOutcome.from_json(data)

    async def close(self) -> None:
        """Disconnect from (or stop) the Ray instance this dispatcher started."""
        if self._owns:
            import ray

            ray.shutdown()
