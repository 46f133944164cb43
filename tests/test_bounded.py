"""The bound on a hostile command's memory measures that command, not the test process.

A child spawned straight from a large process reports at least that process's peak RSS; the
launcher in bench/spawn.py exists so that it does not. Here the test process itself grows by
600 MB, and a tiny command must still measure tiny, while one that allocates 300 MB must measure
at least that: a launcher that lost the command's own usage fails one or the other.
"""

from __future__ import annotations

import sys

from bounded import run_bounded


def test_a_small_command_from_a_large_test_process_measures_small() -> None:
    ballast = bytearray(600 * 2**20)
    ballast[::4096] = b"\x01" * len(ballast[::4096])  # touch every page: resident, not reserved
    small = run_bounded([sys.executable, "-c", "pass"])
    big = run_bounded(
        [sys.executable, "-c", "b = bytearray(300 * 2**20); b[::4096] = b'1' * len(b[::4096])"]
    )
    del ballast
    assert small.peak_bytes < 200 * 2**20, small.peak_bytes / 2**20
    assert big.peak_bytes >= 300 * 2**20, big.peak_bytes / 2**20
    assert small.returncode == big.returncode == 0


def test_exit_status_and_streams_pass_through() -> None:
    code = (
        "import sys; sys.stdout.write(sys.stdin.read().upper()); sys.stderr.write('e'); sys.exit(3)"
    )
    result = run_bounded([sys.executable, "-c", code], stdin="abc")
    assert (result.returncode, result.stdout, result.stderr) == (3, "ABC", "e")
