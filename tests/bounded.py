"""Run a real process on hostile input and hold it to a bound of time and memory.

The robustness contract (README, Robustness) is that no input, however hostile, costs more than
a few seconds or a gigabyte. These are not speed measurements (those live in tests/bench/): the
bounds are an order of magnitude above what a fixed build needs, and a broken one (catastrophic
regex backtracking, an expansion bomb, an unbounded walk) overshoots them by minutes or gigabytes.

Peak memory is the command's own: it is started by the small launcher of ``bench/spawn.py``, which
reports the command's ``wait4`` usage. Started straight from the test process, a child's peak would
start at the test process's own (the launcher's docstring says why): in CI a pytest worker at
1.6 GB made every bounded command here "use" 1.6 GB.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bench.spawn import launched, read_report

SECONDS = 5.0
GIGABYTE = 1 << 30
CLI = [sys.executable, "-m", "qrels_lsp.cli"]


@dataclass(frozen=True, slots=True)
class Bounded:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    peak_bytes: int
    cpu_seconds: float = 0.0


def run_bounded(
    args: Sequence[str | os.PathLike[str]],
    *,
    seconds: float = SECONDS,
    peak_bytes: int = GIGABYTE,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    stdin: str | None = None,
    cpu: bool = False,
    timeout: float | None = None,
) -> Bounded:
    """Run ``args`` to completion; fail the test when it runs past ``seconds`` (it is killed at
    three times that, so a hang fails fast) or its peak RSS passes ``peak_bytes``.

    With ``cpu``, ``seconds`` bounds the processor time the command used (a runaway regex or an
    expansion bomb burns it), not the wall clock, which a machine shared with other work
    stretches; the command is then killed at six times ``seconds`` of wall time (a read that
    blocks burns none).

    With ``timeout``, no duration is asserted: the command is killed at ``timeout`` seconds of
    wall time, and that is the failure (a test of hostile input, where a bound measured on a busy
    machine would be flaky and a backtracking pattern overshoots any generous one by hours)."""
    start = time.monotonic()
    report_fd, write_fd = os.pipe()
    try:
        proc = subprocess.Popen(
            launched(args, write_fd),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            start_new_session=True,
            pass_fds=(write_fd,),
        )
    finally:
        os.close(write_fd)
    out: dict[str, bytes] = {}

    def drain(name: str, stream: object) -> None:
        out[name] = stream.read()  # type: ignore[attr-defined]

    readers = [
        threading.Thread(target=drain, args=("stdout", proc.stdout), daemon=True),
        threading.Thread(target=drain, args=("stderr", proc.stderr), daemon=True),
    ]
    for t in readers:
        t.start()
    if stdin is not None:
        assert proc.stdin is not None
        try:
            proc.stdin.write(stdin.encode())
            proc.stdin.close()
        except BrokenPipeError:
            pass
    killed = False
    deadline = start + (timeout if timeout is not None else (6 if cpu else 3) * seconds)
    while proc.poll() is None:
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)  # the launcher and the command: one session
            killed = True
            proc.wait()
            break
        time.sleep(0.01)  # not a wait: polls the process it bounds; its exit ends the loop
    elapsed = time.monotonic() - start
    report = read_report(report_fd) or {"exit": proc.returncode, "peak_rss_mb": 0.0}
    for t in readers:
        t.join(timeout=5)
    result = Bounded(
        int(report["exit"]),
        out.get("stdout", b"").decode("utf-8", "replace"),
        out.get("stderr", b"").decode("utf-8", "replace"),
        elapsed,
        int(report["peak_rss_mb"] * 2**20),
        float(report.get("cpu_s", 0.0)),
    )
    what = " ".join(str(a) if len(str(a)) < 100 else f"<{len(str(a)):,} characters>" for a in args)[
        :300
    ]
    assert not killed, f"{what}: still running after {deadline - start:.0f} s (killed)"
    used, clock = (result.cpu_seconds, "of processor time") if cpu else (elapsed, "")
    assert timeout is not None or used <= seconds, (
        f"{what}: took {used:.1f} s {clock}, more than {seconds:.0f} s"
    )
    assert result.peak_bytes <= peak_bytes, (
        f"{what}: peak memory {result.peak_bytes / 2**20:.0f} MiB, "
        f"more than {peak_bytes / 2**20:.0f} MiB"
    )
    return result


def peak_rss(pid: int) -> int:
    """A live process's peak resident set (VmHWM), in bytes: for a server under test."""
    return _status_bytes(pid, "VmHWM")


def rss(pid: int) -> int:
    """A live process's resident set now (VmRSS), in bytes."""
    return _status_bytes(pid, "VmRSS")


def _status_bytes(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no {field} for process {pid}")
