"""Run a command as a whole process and measure it: wall time and peak RSS, uninflated.

Linux's ``ru_maxrss`` of a process carries the high-water mark of the memory it had when it
called ``execve``: a child spawned (vfork/posix_spawn) straight from a large parent reports at
least the parent's peak (a pytest worker at 1.6 GB made every child it started "use" 1.6 GB). So
each measured command is started by a tiny launcher process, which spawns it, waits for it with
``wait4`` and writes a report to a pipe; the command's peak RSS is then its own. The launcher
inherits stdin, stdout, stderr, the working directory and the environment, and passes them on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# Run with -I -S: the working directory may be a hostile workspace, and nothing in it (a planted
# json.py) may shadow what the launcher imports.
LAUNCHER = r"""
import json, os, sys, time
report = int(sys.argv[1])
t0 = time.perf_counter()
pid = os.posix_spawnp(
    sys.argv[2], sys.argv[2:], os.environ, file_actions=[(os.POSIX_SPAWN_CLOSE, report)]
)
_, status, usage = os.wait4(pid, 0)
os.write(report, json.dumps({
    "wall_s": time.perf_counter() - t0,
    "peak_rss_mb": usage.ru_maxrss / 1024,
    "cpu_s": usage.ru_utime + usage.ru_stime,
    "exit": os.waitstatus_to_exitcode(status),
}).encode())
"""


def launched(cmd: Sequence[str | os.PathLike[str]], report_fd: int) -> list[str]:
    """``cmd`` wrapped in the launcher, which writes its JSON report to ``report_fd`` (pass it
    to the launcher with ``pass_fds``)."""
    return [sys.executable, "-I", "-S", "-c", LAUNCHER, str(report_fd), *map(str, cmd)]


def read_report(read_fd: int) -> dict[str, Any] | None:
    """The launcher's report from the read end of its pipe (closed here); None when the launcher
    died before writing one (it was killed)."""
    with os.fdopen(read_fd, "rb") as pipe:
        data = pipe.read()
    return json.loads(data) if data else None


def run_measured(cmd: list[str], stdout: Path, cwd: Path | None = None) -> dict[str, Any]:
    """Run ``cmd`` in ``cwd`` with its stdout in ``stdout``; {wall_s, peak_rss_mb, exit}."""
    read_fd, write_fd = os.pipe()
    try:
        with stdout.open("wb") as out:
            subprocess.run(
                launched(cmd, write_fd), stdout=out, pass_fds=(write_fd,), cwd=cwd, check=True
            )
    finally:
        os.close(write_fd)
    report = read_report(read_fd)
    assert report is not None, f"no report from the launcher of {cmd}"
    return report
