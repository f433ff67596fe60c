"""A ``tricktable`` run imports only the module of the command it names; the listing still shows every command.

A command's ``--help``, and a flag it refuses, load neither the server, the web viewer nor NumPy: those
come with the command's work, not with its command line (each case is a real process, and what it had
imported is read from its ``sys.modules``, not timed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from tricktable.cli.main import COMMANDS, make_app, named_command

#: Runs ``main()`` with the given arguments and prints which command modules and packages got imported.
PROBE = """
import json, sys
sys.argv = ["tricktable", *json.loads(sys.argv[1])]
from tricktable.cli import main
try:
    main.main()
    code = 0
except SystemExit as exit:
    code = exit.code
print(json.dumps({"exit": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""

#: What a command's work needs and its command line does not: the game server, the web viewer (and the
#: HTTP library under it), the tournament engine and NumPy.
HEAVY = frozenset({"tricktable.server.app", "tricktable.server.lobby", "tricktable.web.viewer", "tricktable.web.app",
                   "aiohttp", "tricktable.tournament.engine", "numpy"})
#: One command of each module of the table (commands sharing a module share its imports).
ONE_PER_MODULE = list({module: name for name, module in reversed(COMMANDS.items())}.values())


def run_probed(args: list[str]) -> tuple[object, set[str]]:
    """The exit status of a real ``tricktable ARGS`` process and every module it had imported when it ended."""
    run = subprocess.run([sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True, text=True,
                         timeout=120, check=True)
    ended = json.loads(run.stderr.strip().splitlines()[-1])
    return ended["exit"], set(ended["modules"])


def all_imported_by(args: list[str]) -> set[str]:
    """Every module a real ``tricktable ARGS`` process had imported when it ended."""
    return run_probed(args)[1]


def imported_by(args: list[str]) -> set[str]:
    """The ``tricktable.*`` modules a real ``tricktable ARGS`` process had imported when it ended."""
    return {name for name in all_imported_by(args) if name.startswith("tricktable.")}


def test_a_bot_run_imports_the_bot_command_and_neither_the_server_nor_the_viewer_nor_other_commands() -> None:
    modules = imported_by(["bot", "--help"])
    assert "tricktable.cli.bot" in modules
    assert {module for module in set(COMMANDS.values()) - {"tricktable.cli.bot"} if module in modules} == set()
    assert {"tricktable.server.app", "tricktable.web.viewer", "tricktable.tournament.engine"}.isdisjoint(modules)


@pytest.mark.parametrize("command", ONE_PER_MODULE)
def test_a_commands_help_loads_neither_the_server_nor_the_viewer_nor_numpy(command: str) -> None:
    modules = all_imported_by([command, "--help"])
    assert COMMANDS[command] in modules
    assert HEAVY & modules == set()


@pytest.mark.parametrize("args", [
    ["serve", "--port", "70000"],
    ["serve", "--tls-cert", "cert.pem"],
    ["match", "--game", "twenty-five", "--bots", "random,random", "--decision-ms", "0"],
    ["view", "--no-such-flag"],
    ["watch"],
])
def test_a_refused_flag_loads_neither_the_server_nor_the_viewer(args: list[str]) -> None:
    status, modules = run_probed(args)
    assert status == 2
    assert HEAVY & modules == set()


def test_the_listing_imports_every_command_and_lists_each_once_in_table_order() -> None:
    assert set(COMMANDS.values()) <= imported_by(["--help"])
    output = CliRunner().invoke(make_app(), ["--help"], env={"COLUMNS": "200"}).output
    listed = [line.split()[1] for line in output.splitlines() if line.startswith("│ ") and line.split()[1] in COMMANDS]
    assert listed == list(COMMANDS)


def test_every_module_of_the_table_registers_the_commands_the_table_names_for_it() -> None:
    for name, module in COMMANDS.items():
        registered = {info.name for info in make_app((name,)).registered_commands}
        names_of_module = {other for other, owner in COMMANDS.items() if owner == module}
        assert registered == names_of_module, (name, module, registered)


def test_a_mistyped_command_is_still_answered_with_the_close_names() -> None:
    run = subprocess.run([sys.executable, "-m", "tricktable.cli.main", "bott"], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "COLUMNS": "200"})
    assert run.returncode == 2 and "Did you mean 'bot'?" in run.stderr + run.stdout


@pytest.mark.parametrize(("args", "command"), [
    (["bot", "random", "--games", "2"], "bot"),
    (["--version"], None),
    ([], None),
    (["--help"], None),
    (["bott"], None),
    (["tables", "--server", "x"], "tables"),
    (["watch", "t1"], "watch"),
])
def test_the_named_command_is_the_first_argument_that_is_not_an_option(args: list[str], command: str | None) -> None:
    assert named_command(args) == command
