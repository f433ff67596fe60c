"""The wheel in a clean virtual environment: the SDK alone, then the server and a bot of the user's own, typed.

What a new user does after ``pip install tricktable``: import the SDK (which
must need grpcio and protobuf only), install the command line
(``tricktable[cli]``), serve, play a game with their own bot from a file,
and run ``mypy --strict`` on that bot (the packages ship ``py.typed``). The
virtual environment is new and outside the repository, so nothing is
imported from the source tree. Packages come from the same index as
``make venv`` (pip's cache makes a second run quick).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MY_BOT = '''
from tricktable.rules.actions import Action, Play
from tricktable.rules.game import SeatView
from tricktable.client_sdk.cards import strength


class Mine:
    """Plays its strongest card."""

    def choose_action(self, view: SeatView) -> Action:
        plays = [a for a in view.legal_actions if isinstance(a, Play)]
        if not plays:
            return view.legal_actions[0]
        return max(plays, key=lambda a: strength(view, a.card))
'''

# What a bot author imports, and what only the server, the command line and tournaments need.
SDK_MODULES = ("tricktable.client_sdk.runner", "tricktable.client_sdk.cards", "tricktable.bots.heuristic",
               "tricktable.tournament.arena")
SERVER_ONLY = ("structlog", "typer", "rich", "openskill", "aiohttp", "pydantic")

pytestmark = pytest.mark.timeout(900)


def run(*args: str | Path, cwd: Path, timeout: float = 600, status: int = 0) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    assert done.returncode == status, f"{args}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
    return done


def test_the_wheel_in_a_clean_venv_serves_plays_a_users_bot_and_types_it(tmp_path: Path) -> None:
    # Built from a copy: setuptools writes build/ beside the sources, which must not appear in the repository.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, symlinks=True, ignore=shutil.ignore_patterns(
        ".venv", ".git", "build", "data", "artifacts", "node_modules", "*.egg-info", "__pycache__", ".*_cache"))
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", tmp_path / "dist", source, cwd=tmp_path)
    wheel = next((tmp_path / "dist").glob("tricktable-*.whl"))
    with zipfile.ZipFile(wheel) as archive:  # one namespace: nothing collides with another distribution
        assert {n.split("/")[0] for n in archive.namelist() if ".dist-info/" not in n} == {"tricktable"}
    venv.create(tmp_path / "env", with_pip=True)
    py = tmp_path / "env" / "bin" / "python"
    work = tmp_path / "work"
    work.mkdir()

    run(py, "-m", "pip", "install", "-q", wheel, cwd=work)
    sdk_only = run(py, "-c", f"import importlib.util as u, {', '.join(SDK_MODULES)}; "
                   f"print([m for m in {SERVER_ONLY!r} if u.find_spec(m)])", cwd=work)
    assert sdk_only.stdout.strip() == "[]"  # the SDK installed alone brings none of the server's packages
    arena = run(py, "-c", "from tricktable.tournament.arena import play; "
                "print(play('all_fives', ['random', 'heuristic']).summary())", cwd=work)
    assert "heuristic" in arena.stdout
    tricktable = tmp_path / "env" / "bin" / "tricktable"
    bare = run(tricktable, "--help", cwd=work, status=2)  # the command is installed, its libraries are not
    assert bare.stderr.count("\n") == 1 and "pip install 'tricktable[server]'" in bare.stderr, bare.stderr

    run(py, "-m", "pip", "install", "-q", f"{wheel}[server]", "mypy", cwd=work)  # [server] is the whole command
    (work / "my_bot.py").write_text(MY_BOT)
    typed = run(tmp_path / "env" / "bin" / "mypy", "--strict", "my_bot.py", cwd=work)
    assert "Success" in typed.stdout
    site = run(py, "-c", "import importlib.resources as r; print(r.files('tricktable').parent)", cwd=work)
    shipped = Path(site.stdout.strip())
    protos = sorted(str(p.relative_to(shipped)) for p in (shipped / "tricktable" / "v1").glob("*.proto"))
    assert "tricktable/v1/table_service.proto" in protos
    # the shipped files compile where they are installed: each sits at the path its imports name
    run(sys.executable, "-m", "grpc_tools.protoc", f"-I{shipped}", f"--python_out={tmp_path}", *protos, cwd=work)

    server = subprocess.Popen([tricktable, "serve", "--port", "0", "--no-http", "--data-dir", work / "data",
                               "--log-level", "WARNING"], cwd=work, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline().strip()
        assert line.startswith("listening on "), line
        address = line.removeprefix("listening on ")
        bots = [subprocess.Popen([tricktable, "bot", spec, "--server", address, "--seek", "all_fives"], cwd=work,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for spec in ("my_bot.py:Mine", "random")]
        outputs = [bot.communicate(timeout=120) for bot in bots]
        assert [bot.returncode for bot in bots] == [0, 0], outputs
        assert all(out.startswith("game 1: table ") for out, _ in outputs)
    finally:
        server.terminate()
        server.wait(timeout=60)
