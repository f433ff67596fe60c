"""Bots that play through the SDK, found by name: the one resolver of a bot spec.

Each bot implements :class:`tricktable.client_sdk.bot.Bot` (``choose_action(view)``).
:data:`BOTS` maps a command-line name to a factory taking an optional seed;
adding a built-in bot is one entry. Wherever a bot is named (``tricktable
bot``, ``match``, ``ladder``, ``tournament``, the arena), :func:`make_bot`
also accepts the author's own bot as

- ``package.module:Class``: imported like ``python -c "import package.module"``
  from the current directory (so ``mybot:MyBot`` finds ``./mybot.py``), or
- ``path/to/file.py:Class``: the file loaded as a module.

``Class`` may be any callable returning a bot; it is called with ``seed=``
when it takes a ``seed`` parameter, else with no argument.

A bot in any other language is

- ``exec:COMMAND``: a program speaking JSON lines on its standard input and
  output (docs/bots-any-language.md; the seed in ``TRICKTABLE_SEED``), or
- ``webhook:URL``: an HTTP service the same messages are posted to
  (:mod:`tricktable.bots.external`).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import os
import shlex
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tricktable.client_sdk.bot import Bot

def _built_in(module: str, name: str, seeded: bool) -> Callable[[int | str | None], Bot]:
    """A factory that imports ``module`` only when called.

    Why lazily: every command that names bots imports this package for
    :data:`SPEC_HELP`; importing each bot (and the search code beneath them)
    up front made ``--help`` of those commands pay for all of them.
    """

    def factory(seed: int | str | None) -> Bot:
        cls = getattr(importlib.import_module(module), name)
        bot: Bot = cls(seed) if seeded else cls()
        return bot

    return factory


#: Bot name -> factory(seed) -> bot.
BOTS: dict[str, Callable[[int | str | None], Bot]] = {
    "random": _built_in("tricktable.bots.random_bot", "RandomBot", seeded=True),
    "first-legal": _built_in("tricktable.bots.first_legal", "FirstLegalBot", seeded=False),
    "heuristic": _built_in("tricktable.bots.heuristic", "HeuristicBot", seeded=False),
    "pimc": _built_in("tricktable.bots.pimc", "PimcBot", seeded=True),
    "pimc-exact": _built_in("tricktable.bots.pimc_exact", "PimcExactBot", seeded=True),
    "search": _built_in("tricktable.bots.search", "SearchBot", seeded=True),
    "learned": lambda seed: _learned(),
}

#: What a bot spec may be, for help texts and error messages.
SPEC_HELP = (f"{', '.join(BOTS)}, or your own as module:Class, path/to/file.py:Class, exec:\"PROGRAM ARGS\" "
             "(any language, JSON lines on stdin/stdout) or webhook:http://HOST:PORT/")
#: Spec prefixes of the bots in other languages.
EXEC_PREFIX, WEBHOOK_PREFIX = "exec:", "webhook:"


class BotSpecError(ValueError):
    """A bot spec names no bot: unknown name, module or file not found, missing class, not a bot.

    The message is one line, fit for a command's ``error:`` output.
    """


def bot_factory(spec: str) -> Callable[[int | str | None], Bot]:
    """The factory ``seed -> bot`` that ``spec`` names, imported and checked, without making a bot.

    Why apart from :func:`make_bot`: commands check every bot they are given
    before the first game (a tournament must not play a hundred forfeits
    because of a typo).

    Raises:
        BotSpecError: naming what is wrong with ``spec``.
    """
    if spec in BOTS:
        return BOTS[spec]
    if spec.startswith(EXEC_PREFIX):
        return _exec_factory(spec)
    if spec.startswith(WEBHOOK_PREFIX):
        return _webhook_factory(spec)
    where, colon, attr = spec.rpartition(":")
    if not colon or not where or not attr:
        raise BotSpecError(f"unknown bot {spec!r} (bots: {SPEC_HELP})")
    module = _load_file(where) if where.endswith(".py") else _import_module(where)
    target = getattr(module, attr, None)
    if target is None:
        raise BotSpecError(f"bot {spec!r}: {where} has no {attr!r}")
    if not callable(target):
        raise BotSpecError(f"bot {spec!r}: {attr} is not a class or a function")
    if inspect.isclass(target) and not callable(getattr(target, "choose_action", None)):
        raise BotSpecError(f"bot {spec!r}: {attr} has no choose_action(view) method")
    try:
        takes_seed = "seed" in inspect.signature(target).parameters
    except (TypeError, ValueError):
        takes_seed = False

    def build(seed: int | str | None) -> Bot:
        try:
            bot = target(seed=seed) if takes_seed else target()
        except Exception as exc:  # the author's constructor: said in one line, where the bot is started
            called = f"{attr}(seed=...)" if takes_seed else f"{attr}()"
            raise BotSpecError(f"bot {spec!r}: {called} failed: {type(exc).__name__}: {exc}") from None
        if not callable(getattr(bot, "choose_action", None)):
            raise BotSpecError(f"bot {spec!r}: {attr}() returned {type(bot).__name__}, which has no choose_action")
        made: Bot = bot
        return made

    return build


def exec_argv(spec: str) -> list[str]:
    """The command line of an ``exec:`` spec, split like a shell's words.

    Raises:
        BotSpecError: an empty or badly quoted command, or a program that is not there.
    """
    command = spec.removeprefix(EXEC_PREFIX)
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise BotSpecError(f"bot {spec!r}: bad command line: {exc}") from None
    if not argv:
        raise BotSpecError(f"bot {spec!r}: give the program to run, e.g. exec:\"python3 mybot.py\"")
    program = argv[0]
    found = shutil.which(program) if "/" not in program else (program if os.access(program, os.X_OK) else None)
    if found is None:
        why = "not executable" if os.path.exists(program) else "no such program"
        raise BotSpecError(f"bot {spec!r}: {program}: {why}")
    return argv


def _exec_factory(spec: str) -> Callable[[int | str | None], Bot]:
    from tricktable.bots.external.exec_bot import ExecBot

    argv = exec_argv(spec)

    def build(seed: int | str | None) -> Bot:
        try:
            return ExecBot(argv, env={} if seed is None else {"TRICKTABLE_SEED": str(seed)})
        except OSError as exc:
            raise BotSpecError(f"bot {spec!r}: cannot start {argv[0]}: {exc}") from None

    return build


def _webhook_factory(spec: str) -> Callable[[int | str | None], Bot]:
    from tricktable.bots.external.webhook_bot import WebhookBot, check_url

    url = spec.removeprefix(WEBHOOK_PREFIX)
    try:
        check_url(url)
    except ValueError as exc:
        raise BotSpecError(f"bot {spec!r}: {exc}") from None
    return lambda seed: WebhookBot(url)


def _learned() -> Bot:
    """The learned bot, imported only when asked for: it needs NumPy, which the SDK alone does not install.

    Raises:
        BotSpecError: NumPy is not installed.
    """
    try:
        from tricktable.bots.learned.bot import LearnedBot
    except ModuleNotFoundError as exc:
        raise BotSpecError(f"bot 'learned' needs {exc.name}: pip install 'tricktable[train]'") from None
    return LearnedBot()


def make_bot(spec: str, seed: int | str | None = None) -> Bot:
    """A new bot from a built-in name, ``module:Class`` or ``path/to/file.py:Class`` (see the module).

    Raises:
        BotSpecError: naming what is wrong with ``spec``.
    """
    return bot_factory(spec)(seed)


def _import_module(name: str) -> object:
    """Import ``name`` with the current directory on the path (a console script does not put it there)."""
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            raise BotSpecError(f"no module named {name!r} (from {here})") from None
        raise BotSpecError(f"module {name!r} failed to import: {exc}") from None
    except Exception as exc:  # the author's module raised while importing
        raise BotSpecError(f"module {name!r} failed to import: {type(exc).__name__}: {exc}") from None


def _load_file(path: str) -> object:
    """Load a Python file as a module (once per file: a second bot from the same file shares it)."""
    file = Path(path).resolve()
    if not file.is_file():
        raise BotSpecError(f"no such file: {path}")
    name = "tricktable_user_bot_" + hashlib.sha256(str(file).encode()).hexdigest()[:16]
    if name in sys.modules:
        return sys.modules[name]
    loader_spec = importlib.util.spec_from_file_location(name, file)
    if loader_spec is None or loader_spec.loader is None:
        raise BotSpecError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[name] = module
    # The file's own folder first, so that it can import its neighbours.
    if str(file.parent) not in sys.path:
        sys.path.insert(0, str(file.parent))
    try:
        loader_spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise BotSpecError(f"{path} failed to load: {type(exc).__name__}: {exc}") from None
    return module
