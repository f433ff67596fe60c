"""What every ``python -m bench.NAME`` shares: its parser, the machine it ran on, its JSON report, its ratios.

A benchmark's figures are only read beside their conditions, so each report says when and on what it
was measured in the same words (:func:`machine`, :func:`measured_at`) and is written the same way
(:func:`write_report`); the entry points that time a list of workloads take the same ``--seconds``,
``--rounds`` and ``--only`` (:func:`add_workload_options`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def parser(module: str, doc: str | None, *, out: Path | None = None) -> argparse.ArgumentParser:
    """The parser of ``python -m MODULE``: the docstring's first line as its description, and ``--out``
    (the JSON report) when the benchmark writes one by default at ``out``."""
    made = argparse.ArgumentParser(prog=f"python -m {module}", description=(doc or "").split("\n")[0])
    if out is not None:
        made.add_argument("--out", type=Path, default=out, help=f"JSON output (default {out})")
    return made


def add_workload_options(made: argparse.ArgumentParser, *, seconds: float = 3.0, rounds: int = 3) -> None:
    """``--seconds`` (CPU seconds per entry), ``--rounds`` (median reported) and ``--only`` (a key filter)."""
    made.add_argument("--seconds", type=float, default=seconds, help=f"CPU seconds per entry (default {seconds:g})")
    made.add_argument("--rounds", type=int, default=rounds, help="rounds per entry; the median is reported")
    made.add_argument("--only", default="", help="run only entries whose key contains this text")


def load_average() -> list[float] | None:
    """The machine's load averages (1, 5, 15 minutes), rounded; None where the system has none."""
    return [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or _cpu_model(),
        "cpu_count": os.cpu_count(),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "load_average": load_average(),
    }


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def measured_at() -> str:
    """Now, in UTC to the second: a report's ``measured_at``."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def write_report(out: Path, report: dict[str, Any]) -> None:
    """Write ``report`` as indented JSON at ``out`` (its folder made if needed) and say where."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwrote {out}")


def rate(results: dict[str, dict[str, Any]], key: str) -> float | None:
    """The decision rate of entry ``key`` of this run, or None when it was not measured."""
    value = results.get(key, {}).get("decisions_per_second")
    return float(value) if value else None


def print_ratios(ratios: dict[str, float], *, width: int, digits: int = 2) -> None:
    """The ratios of this run, one a line after a blank one."""
    print()
    for name, value in ratios.items():
        print(f"{name:<{width}} {value:>8.{digits}f}x")
