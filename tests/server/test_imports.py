"""Import directions of the server (STYLE.md): rules and the protocol package, nothing else of ours (never the SDK)."""

from __future__ import annotations

import ast
from pathlib import Path

SERVER = Path(__file__).resolve().parents[2] / "tricktable" / "server"
OURS = ("rules", "protocol", "server", "client_sdk", "bots", "cli", "tournament", "bench", "tests", "web")
ALLOWED = ("rules", "server", "protocol")


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name.removeprefix("tricktable.") for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.removeprefix("tricktable."))
    return names


def test_server_imports_only_rules_and_the_protocol_package() -> None:
    bad = {}
    for path in sorted(SERVER.glob("*.py")):
        wrong = sorted(name for name in imported(path)
                       if name.split(".")[0] in OURS
                       and not any(name == a or name.startswith(a + ".") for a in ALLOWED))
        if wrong:
            bad[path.name] = wrong
    assert bad == {}


#: What the server may take from the rules: the engine's entry points and its types, never a game's logic.
RULES_NAMES = {
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
    "rules.registry": {"game_rules", "new_match"},
    "rules.shuffle": {"seed_commitment"},
    "rules.frozen": {"evolve"},  # the copy of an immutable state with some fields changed (a waiting view)
}


def test_the_server_has_no_rules_of_its_own() -> None:
    """No rules logic in the server: it takes only the engine's entry points and types from ``rules``."""
    bad = []
    for path in sorted(SERVER.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tricktable.rules"):
                module = node.module.removeprefix("tricktable.")
                allowed = RULES_NAMES.get(module, set())
                bad += [f"{path.name}: {module}.{a.name}" for a in node.names if a.name not in allowed]
    assert bad == []
