"""A ``tricktable`` run imports only the module of the command it names; the listing still shows every command."""

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
except SystemExit:
    pass
print(json.dumps(sorted(name for name in sys.modules if name.startswith("tricktable."))), file=sys.stderr)
"""


def imported_by(args: list[str]) -> set[str]:
    """The ``tricktable.*`` modules a real ``tricktable ARGS`` process had imported when it ended."""
    run = subprocess.run([sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True, text=True,
                         timeout=120, check=True)
    return set(json.loads(run.stderr.strip().splitlines()[-1]))


def test_a_bot_run_imports_the_bot_command_and_neither_the_server_nor_the_viewer_nor_other_commands() -> None:
    modules = imported_by(["bot", "--help"])
    assert "tricktable.cli.bot" in modules
    assert {module for module in set(COMMANDS.values()) - {"tricktable.cli.bot"} if module in modules} == set()
    assert {"tricktable.server.app", "tricktable.web.viewer", "tricktable.tournament.engine"}.isdisjoint(modules)


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
