"""Run a command as a whole process and measure it: wall time and peak RSS, uninflated.

Linux's ``ru_maxrss`` of a process carries the high-water mark of the memory it had when it
called ``execve``: a child spawned (vfork/posix_spawn) straight from a large parent reports at
least the parent's peak. So each measured command is started by a tiny launcher process, which
spawns it, waits for it with ``wait4`` and reports; the command's peak RSS is then its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

LAUNCHER = r"""
import json, os, sys, time
out = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
t0 = time.perf_counter()
pid = os.posix_spawnp(
    sys.argv[2], sys.argv[2:], os.environ, file_actions=[(os.POSIX_SPAWN_DUP2, out, 1)]
)
_, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - t0
print(json.dumps({
    "wall_s": wall,
    "peak_rss_mb": usage.ru_maxrss / 1024,
    "exit": os.waitstatus_to_exitcode(status),
}))
"""


def run_measured(cmd: list[str], stdout: Path) -> dict[str, Any]:
    """Run ``cmd`` with its stdout in ``stdout``; {wall_s, peak_rss_mb, exit}."""
    proc = subprocess.run(
        [sys.executable, "-S", "-c", LAUNCHER, str(stdout), *cmd],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result
