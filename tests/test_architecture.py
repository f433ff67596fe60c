"""The house's floors: which package may import which, read from the code itself.

The packages stand in floors, and a package imports only from floors below its own:

    rules -> protocol -> server | client_sdk -> envs -> bots -> tournament | analysis -> web -> cli

A module beside the packages (``tricktable/stats.py``, the intervals the ladder, the tournament and
the viewer print) imports only the standard library, so that every floor may import it.

Packages on one floor do not import each other (the server never imports the SDK, nor the SDK the
server), the bots never import the server (``pip install tricktable``, the SDK alone, plays bots
without it), the rules import only the pure standard library, and nothing imports a bare top-level
name (``import rules`` works from the repository root through its link but not once installed, and
here it would load a second copy of every class). One walker reads every import; one table says
what is allowed.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tricktable"

#: The floors, lowest first. A package may import its own floor's package only if it is itself.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("rules",),
    ("protocol",),
    ("server", "client_sdk"),
    # The learners' encoding, below the bots: the learned bot reads the view as the environments give it.
    ("envs",),
    ("bots",),
    ("tournament", "analysis"),
    ("web",),
    ("cli",),
)
#: Imports the floors would allow but the packaging forbids: the SDK distribution has no server.
FORBIDDEN: dict[str, set[str]] = {"bots": {"server"}, "envs": {"server"}, "analysis": {"server"}}
#: Modules held to less than their package's floor.
MODULE_LIMITS: dict[str, set[str]] = {
    # The tournament store is handed its database file (the file's one home is tricktable.server.storage) and
    # takes the record store's URL check and migration runner from the server; nothing of the protocol or bots.
    "tournament/store.py": {"rules", "tournament", "server"},
    # Its two databases take the migration runner from the server and the errors they raise from the store's own
    # module of them (tricktable.tournament.store_errors).
    "tournament/sqlite_store.py": {"server", "tournament"},
    "tournament/pg_store.py": {"server", "tournament"},
}
#: What the server may take from the rules: the engine's entry points and types, never a game's logic.
SERVER_RULES_NAMES: dict[str, set[str]] = {
    "rules.actions": {"Action"},
    "rules.record": {"action_from_json", "action_to_json",  # the record form: the journal stores actions
                     "annotate_record"},  # the bots' notes go on their actions once the table ended
    "rules.annotation": {"Annotation", "AnnotationError"},  # a bot's note: its form and limits
    "rules.cards": {"Card", "Suit"},
    "rules.errors": {"ErrorCode", "NotationError", "OptionsError", "RecordError", "RuleError"},
    "rules.events": {"ACTION_EVENTS", "ActionEvent", "Audience", "Event"},
    "rules.game": {"Contract", "DealState", "Result", "Seat", "SeatView", "Trick"},
    "rules.defaults": {"default_action"},
    "rules.match": {"MAX_DEALS", "Match"},
    "rules.registry": {"game_definition", "game_rules", "new_match"},
    "rules.shuffle": {"seed_commitment"},
    "rules.notation": {"from_notation"},  # an answer names its action by its notation, parsed by the rules
    "rules.frozen": {"evolve"},  # the copy of an immutable state with some fields changed (a waiting view)
}
#: Standard-library modules the rules may not use: I/O, clocks, processes, network.
RULES_FORBIDDEN_STDLIB = {
    "os", "io", "sys", "time", "datetime", "socket", "subprocess", "threading", "asyncio",
    "pathlib", "shutil", "tempfile", "logging", "sqlite3", "urllib", "http", "multiprocessing",
    "secrets", "uuid", "glob", "signal", "select",
}
#: Calls on the random module that would use the global generator.
GLOBAL_RANDOM = {"random", "shuffle", "choice", "choices", "randrange", "randint", "sample",
                 "seed", "uniform", "getrandbits"}
#: Folders outside the package whose code imports it.
OUTSIDE = ("tests", "bench", "examples", "protos")


def _packages() -> list[str]:
    return sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))


def _modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "generated" not in p.parts and "node_modules" not in p.parts)


def _imports(path: Path) -> Iterator[tuple[str, list[str]]]:
    """Every absolute import of ``path``: the module and the names taken from it (empty for ``import x``)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module, [a.name for a in node.names]


def _ours(module: str) -> str | None:
    """``tricktable.rules.x`` -> ``rules``; None for anything that is not one of our packages."""
    parts = module.split(".")
    return parts[1] if parts[0] == "tricktable" and len(parts) > 1 and parts[1] in _packages() else None


def _allowed(package: str) -> set[str]:
    floor = next(i for i, names in enumerate(FLOORS) if package in names)
    below = {name for names in FLOORS[:floor] for name in names}
    return (below | {package}) - FORBIDDEN.get(package, set())


def test_every_package_stands_on_a_floor() -> None:
    assert sorted(name for names in FLOORS for name in names) == _packages()


@pytest.mark.parametrize("package", [name for names in FLOORS for name in names])
def test_a_package_imports_only_from_the_floors_below(package: str) -> None:
    bad = []
    for path in _modules(PACKAGE / package):
        allowed = MODULE_LIMITS.get(str(path.relative_to(PACKAGE)), _allowed(package))
        bad += [f"{path.relative_to(ROOT)} imports {module}" for module, _ in _imports(path)
                if (ours := _ours(module)) is not None and ours not in allowed]
    assert bad == []


def test_the_server_takes_only_the_engines_entry_points_from_the_rules() -> None:
    """No rules logic in the server: it takes only the engine's entry points and types from ``rules``."""
    bad = []
    for path in _modules(PACKAGE / "server"):
        for module, names in _imports(path):
            if _ours(module) == "rules":
                allowed = SERVER_RULES_NAMES.get(module.removeprefix("tricktable."), set())
                bad += [f"{path.name}: {module}.{name}" for name in names if name not in allowed]
    assert bad == []


def test_the_rules_import_only_the_pure_standard_library() -> None:
    bad = []
    for path in _modules(PACKAGE / "rules"):
        for module, _ in _imports(path):
            top = module.split(".")[0]
            if _ours(module) == "rules" or top == "__future__":
                continue
            if top not in sys.stdlib_module_names:
                bad.append(f"{path.name}: imports non-stdlib {module}")
            elif top in RULES_FORBIDDEN_STDLIB:
                bad.append(f"{path.name}: imports {module} (I/O, clock or process)")
    assert len(_modules(PACKAGE / "rules")) >= 5
    assert bad == []


def test_a_module_beside_the_packages_imports_only_the_standard_library() -> None:
    """``tricktable/stats.py`` and its like stand below every floor: any package may import them."""
    modules = sorted(p for p in PACKAGE.glob("*.py") if p.name != "__init__.py")
    bad = [f"{path.name}: imports {module}" for path in modules for module, _ in _imports(path)
           if module.split(".")[0] not in sys.stdlib_module_names | {"__future__"}]
    assert [p.name for p in modules] != [] and bad == []


def test_the_rules_never_call_the_global_random_generator_or_open() -> None:
    bad: list[str] = []
    for path in _modules(PACKAGE / "rules"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                    and func.value.id == "random" and func.attr in GLOBAL_RANDOM):
                bad.append(f"{path.name}:{node.lineno}: random.{func.attr}()")
            if isinstance(func, ast.Name) and func.id in {"open", "print", "input"}:
                bad.append(f"{path.name}:{node.lineno}: {func.id}()")
    assert bad == []


def test_no_module_imports_a_package_outside_the_namespace() -> None:
    bare = set(_packages())
    bad = [f"{path.relative_to(ROOT)}: {module}"
           for folder in (PACKAGE, *(ROOT / name for name in OUTSIDE))
           for path in _modules(folder)
           for module, _ in _imports(path) if module.split(".")[0] in bare]
    assert bad == []


def test_the_package_folder_holds_no_link() -> None:
    assert [str(p.relative_to(ROOT)) for p in PACKAGE.rglob("*") if p.is_symlink()] == []


def test_every_top_level_link_points_into_the_package() -> None:
    links = {p.name: p.resolve() for p in ROOT.iterdir() if p.is_symlink()}
    assert links == {name: (PACKAGE / name).resolve() for name in links}
    assert set(links) <= set(_packages())
