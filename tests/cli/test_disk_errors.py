"""A ``tricktable`` command whose write the disk refuses ends with one ``error:`` line and exit status 2.

A real process through the installed entry point (:func:`tricktable.cli.launch.main`), writing its
JSON onto ``/dev/full``, a device every write to fails with ``ENOSPC`` as a full disk does.
"""

from __future__ import annotations

import errno
import subprocess
import sys
from pathlib import Path

import pytest

from tricktable.cli.launch import DISK_ERRORS, disk_error_message

ENTRY = "import sys; from tricktable.cli.launch import main; sys.argv[0] = 'tricktable'; main()"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (a device every write to fails: ENOSPC)")
def test_a_write_onto_a_full_disk_ends_the_command_with_one_line_and_exit_2() -> None:
    done = subprocess.run([sys.executable, "-c", ENTRY, "ladder", "--game", "all_fives", "--games", "1", "--seed",
                           "disk", "--pair", "heuristic,random", "--json", "/dev/full"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("error:")]
    assert errors == [disk_error_message(OSError(errno.ENOSPC, "No space left on device"))], done.stderr


def test_only_the_disks_errors_are_turned_into_a_line() -> None:
    assert errno.ENOSPC in DISK_ERRORS and errno.EROFS in DISK_ERRORS
    assert errno.ENOENT not in DISK_ERRORS  # a missing file is the command's to explain, or a bug
    named = disk_error_message(OSError(errno.ENOSPC, "No space left on device", "/data/out.json"))
    assert named.startswith("error: /data/out.json: No space left on device")
