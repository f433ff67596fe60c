"""The one resolver of bot specs: built-in names, ``module:Class`` and ``path/to/file.py:Class``."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from tricktable.bots import BotSpecError, bot_factory, make_bot
from tricktable.bots.random_bot import RandomBot
from tricktable.rules.registry import new_match

HIGH_CARD = '''
class HighCard:
    """Plays its last legal action; remembers the seed it was given."""

    def __init__(self, seed=None):
        self.seed = seed

    def choose_action(self, view):
        return view.legal_actions[-1]


class NoSeed:
    def choose_action(self, view):
        return view.legal_actions[0]


class NotABot:
    pass


def factory():
    return NoSeed()
'''


@pytest.fixture
def module_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A module of the author's own in the current directory, under a name no other test uses."""
    name = f"mybot_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text(HIGH_CARD)
    monkeypatch.chdir(tmp_path)
    return name


def test_a_built_in_name_makes_the_built_in_bot() -> None:
    assert isinstance(make_bot("random", 3), RandomBot)


def test_module_colon_class_is_found_in_the_current_directory_and_gets_the_seed(module_name: str) -> None:
    bot = make_bot(f"{module_name}:HighCard", "s1")
    assert type(bot).__name__ == "HighCard" and bot.seed == "s1"  # type: ignore[attr-defined]
    match = new_match("all_fives", {}, seed="x")
    seat = match.to_act
    assert seat is not None
    view = match.view(seat)
    assert bot.choose_action(view) == view.legal_actions[-1]


def test_a_class_without_a_seed_parameter_and_a_factory_function_are_called_without_one(module_name: str) -> None:
    assert type(make_bot(f"{module_name}:NoSeed", "s")).__name__ == "NoSeed"
    assert type(make_bot(f"{module_name}:factory", "s")).__name__ == "NoSeed"


def test_path_colon_class_loads_the_file(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "author_bot.py"
    path.parent.mkdir()
    path.write_text(HIGH_CARD)
    bot = make_bot(f"{path}:HighCard", 7)
    assert type(bot).__name__ == "HighCard"
    assert make_bot(f"{path}:HighCard").__class__ is type(bot)  # the file is loaded once


@pytest.mark.parametrize(("spec", "message"), [
    ("randm", "unknown bot 'randm'"),
    ("no_such_module_xyz:Bot", "no module named 'no_such_module_xyz'"),
    ("missing/file.py:Bot", "no such file: missing/file.py"),
    ("tricktable.bots.random_bot:Nope", "has no 'Nope'"),
    ("tricktable.bots.random_bot:random", "is not a class or a function"),  # a module attribute that is no bot
])
def test_a_bad_spec_is_one_line_naming_the_mistake(spec: str, message: str) -> None:
    with pytest.raises(BotSpecError, match=message) as caught:
        bot_factory(spec)
    assert "\n" not in str(caught.value)


def test_a_class_that_is_not_a_bot_is_refused(module_name: str) -> None:
    with pytest.raises(BotSpecError, match="NotABot has no choose_action"):
        bot_factory(f"{module_name}:NotABot")


def test_a_module_that_fails_to_import_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = f"broken_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text("import numpy_that_is_not_installed_xyz\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BotSpecError, match=f"module '{name}' failed to import"):
        bot_factory(f"{name}:Bot")


def test_an_exec_spec_naming_no_program_is_refused_before_anything_starts(tmp_path: Path) -> None:
    with pytest.raises(BotSpecError, match="no such program"):
        bot_factory(f"exec:{tmp_path / 'missing-bot'} --fast")
    script = tmp_path / "bot.sh"
    script.write_text("#!/bin/sh\n")
    with pytest.raises(BotSpecError, match="not executable"):
        bot_factory(f"exec:{script}")
    with pytest.raises(BotSpecError, match="give the program"):
        bot_factory("exec:")
    with pytest.raises(BotSpecError, match="bad command line"):
        bot_factory('exec:python3 "unclosed')


@pytest.mark.parametrize("url", ["ftp://127.0.0.1/", "127.0.0.1:8080", "http:///nohost", "http://127.0.0.1:99999/"])
def test_a_webhook_spec_that_is_no_http_url_is_refused(url: str) -> None:
    with pytest.raises(BotSpecError, match="webhook"):
        bot_factory(f"webhook:{url}")


def test_a_bot_class_that_cannot_be_made_names_its_error_where_it_is_made(tmp_path: Path) -> None:
    path = tmp_path / f"needs_{uuid.uuid4().hex}.py"
    path.write_text("class NeedsTwo:\n    def __init__(self, a, b):\n        pass\n"
                    "    def choose_action(self, view):\n        return view.legal_actions[0]\n")
    factory = bot_factory(f"{path}:NeedsTwo")  # the spec itself is fine: the class is there
    with pytest.raises(BotSpecError, match=r"NeedsTwo\(\) failed: TypeError: .*missing 2 required"):
        factory(None)
