"""A command's flags from a TOML file: every flag has a key, the flags given on the line win.

An operator keeps a server's settings in one file under version control instead of a long
command line. The file's keys are the command's own flag names in snake case
(``--decision-ms`` is ``decision_ms``; a ``--x/--no-x`` pair is ``x = true|false``), so there is
one vocabulary and one set of checks: each value goes through the same conversion as the flag,
then the command's own range checks. The file becomes the command context's ``default_map``: a flag written
on the command line overrides its key, anything unset keeps the built-in default.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import typer

from tricktable.cli import checks

#: Parameters that are about the file itself, never keys in it.
FILE_PARAMETERS = frozenset({"config_file", "print_config"})


def load_defaults(ctx: typer.Context, _param: typer.CallbackParam, path: Path | None) -> Path | None:
    """``--config`` callback (eager): check the file and make its values the command's defaults.

    Every problem is one line naming the file and the key, exit status 2: a file that cannot be
    read or parsed, an unknown key, a value the flag would refuse.
    """
    if path is None:
        return None
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        checks.fail(f"{path}: cannot be read ({error.strerror})")
    except tomllib.TOMLDecodeError as error:
        checks.fail(f"{path}: not valid TOML ({error})")
    options = {p.name: p for p in ctx.command.params if p.param_type_name == "option" and p.name}
    defaults: dict[str, Any] = {}
    for key, value in table.items():
        option = options.get(key)
        if option is None or key in FILE_PARAMETERS:
            known = ", ".join(sorted(set(options) - FILE_PARAMETERS))
            checks.fail(f"{path}: unknown key {key!r} (keys: {known})")
        expected = _expected_type(option)
        if not isinstance(value, expected) or (isinstance(value, bool) and bool not in expected):
            names = " or ".join(TOML_NAMES[t] for t in expected)
            checks.fail(f"{path}: {key} must be {names}, not {value!r}")
        defaults[key] = value
    ctx.default_map = {**(ctx.default_map or {}), **defaults}
    return path


#: How a value of each Python type is written in TOML, for the messages.
TOML_NAMES: dict[type, str] = {bool: "true or false", int: "an integer", float: "a number", str: "a string"}


def _expected_type(option: Any) -> tuple[type, ...]:
    """The TOML types a key takes: the flag's own kind, read from whether it is a flag and from its default."""
    if getattr(option, "is_flag", False) or isinstance(option.default, bool):
        return (bool,)
    if isinstance(option.default, int):
        return (int,)
    if isinstance(option.default, float):
        return (int, float)
    return (str,)  # text, and paths (whose default is None)


def to_toml(values: dict[str, Any]) -> str:
    """The effective settings as a file ``--config`` reads back (unset values as comments)."""
    lines = []
    for key, value in sorted(values.items()):
        if key in FILE_PARAMETERS:
            continue
        if value is None:
            lines.append(f"# {key}: unset (the built-in behaviour)")
        elif isinstance(value, bool):
            lines.append(f"{key} = {'true' if value else 'false'}")
        elif isinstance(value, int | float):
            lines.append(f"{key} = {value!r}")
        else:
            text = str(value).replace("\\", "\\\\").replace('"', '\\"')
            lines.append(f'{key} = "{text}"')
    return "\n".join(lines) + "\n"
