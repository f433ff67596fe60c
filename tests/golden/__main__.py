"""``python -m tests.golden --regenerate`` (``make golden``): rewrite the golden playthroughs; without the flag,
report which differ."""

from __future__ import annotations

import argparse
import sys

from tests.golden import PLAYTHROUGHS, render


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.golden", description=__doc__)
    parser.add_argument("--regenerate", action="store_true", help="rewrite the files")
    args = parser.parse_args(argv)
    stale = 0
    for play in PLAYTHROUGHS:
        text = render(play)
        current = play.path.read_text(encoding="utf-8") if play.path.exists() else None
        if text == current:
            continue
        if args.regenerate:
            play.path.write_text(text, encoding="utf-8")
            print(f"wrote {play.path}")
        else:
            stale += 1
            print(f"differs: {play.path}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
