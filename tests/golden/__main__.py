"""``python -m tests.golden --regenerate`` (``make golden``): rewrite the golden playthroughs and the perft counts;
without the flag, report which differ."""

from __future__ import annotations

import argparse
import sys

from tests.golden import PLAYTHROUGHS, perft, render


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.golden", description=__doc__)
    parser.add_argument("--regenerate", action="store_true", help="rewrite the files")
    args = parser.parse_args(argv)
    stale = 0
    files = [(play.path, lambda play=play: render(play)) for play in PLAYTHROUGHS]
    for path, make in [*files, (perft.PERFT_FILE, perft.render)]:
        text = make()
        current = path.read_text(encoding="utf-8") if path.exists() else None
        if text == current:
            continue
        if args.regenerate:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
        else:
            stale += 1
            print(f"differs: {path}")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
