"""Every reference a reader follows resolves, and the product speaks of itself, not of how it was built.

Code comments and docs cite the rule book by section (``docs/games.md 3.3``) and the
record format (``docs/records.md, "A deal"``); Markdown pages link each other. A
citation of a file that is not in the repository, of a section number the rule book
does not have, or a link to a missing page or heading is a dead end for the reader.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("tricktable", "tests", "bench", "examples", "protos", "docs")
SUFFIXES = {".py", ".proto", ".md", ".js", ".go", ".toml", ".json", ".html"}
SKIP_PARTS = {"node_modules", "generated", "__pycache__", ".venv"}

#: A repository path a reader is sent to: ``docs/games.md``, ``docs/record.schema.json``.
DOC_PATH = re.compile(r"\bdocs/[\w./-]+\.(?:md|json)")
#: A rule-book section cited by number: ``docs/games.md 3.3``, ``docs/games.md section 2``.
RULE_SECTION = re.compile(r"docs/games\.md,?\s+(?:section\s+|§\s*)?(\d+(?:\.\d+)?)")
#: A Markdown link: ``[text](target)``.
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
#: Words about how the project was made, not what it is.
HISTORY = re.compile(r"\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|this|earlier|previous|last)"
                     r" session\b|\bissue \d+|\bissue's\b|\bengineers?\b", re.IGNORECASE)


def _files() -> list[Path]:
    found = [ROOT / "README.md", ROOT / "CHANGELOG.md"]
    for top in SOURCES:
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix in SUFFIXES and path.is_file() and not SKIP_PARTS & set(path.parts):
                found.append(path)
    return found


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    return {_slug(line.lstrip("#")) for line in page.read_text(encoding="utf-8").splitlines()
            if line.startswith("#")}


def test_every_cited_docs_path_exists() -> None:
    missing = [f"{path.relative_to(ROOT)}: {ref}" for path in _files()
               for ref in DOC_PATH.findall(path.read_text(encoding="utf-8"))
               if not (ROOT / ref.rstrip(".")).exists()]
    assert missing == []


def test_every_cited_rule_book_section_exists() -> None:
    headings = {m.group(1) for m in re.finditer(r"^##+ (\d+(?:\.\d+)?)\.? ",
                                                 (ROOT / "docs" / "games.md").read_text(encoding="utf-8"), re.M)}
    assert {"1", "1.3", "2.2", "3.6"} <= headings
    dead = [f"{path.relative_to(ROOT)}: {section}" for path in _files()
            for section in RULE_SECTION.findall(path.read_text(encoding="utf-8"))
            if section not in headings]
    assert dead == []


@pytest.mark.parametrize("page", sorted([ROOT / "README.md", ROOT / "CHANGELOG.md", *(ROOT / "docs").glob("*.md"),
                                         *(ROOT / "examples").glob("*/README.md")]),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_every_markdown_link_resolves(page: Path) -> None:
    dead = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        linked = (page.parent / file_part).resolve() if file_part else page
        if not linked.exists() or (anchor and linked.suffix == ".md" and anchor not in _anchors(linked)):
            dead.append(target)
    assert dead == []


def test_nothing_speaks_of_how_the_project_was_built() -> None:
    """Sessions, issue numbers and engineers belong in git history, not in the docs or the code."""
    told = [f"{path.relative_to(ROOT)}:{number}: {line.strip()}" for path in _files()
            if path.name != "test_references.py"
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if HISTORY.search(line)]
    assert told == []
