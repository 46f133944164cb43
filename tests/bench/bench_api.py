"""The Python API's import (docs/api.md, "Cost"): ``python -c "import qrels_lsp.api"`` against
the command line's start, ``qrels-lsp --help``, whole processes interleaved, bytecode compiled
first; and what ``-X importtime`` says ``qrels_lsp.api`` costs on its own.

    python tests/bench/bench_api.py [--runs 20]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import time
from typing import Any

IMPORT_API = [sys.executable, "-c", "import qrels_lsp.api"]
CLI_HELP = [sys.executable, "-m", "qrels_lsp.cli", "--help"]


def _wall(cmd: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    return time.perf_counter() - started


def _own_import_us() -> int:
    """``qrels_lsp.api``'s cumulative import time (microseconds) as ``-X importtime`` reports."""
    r = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import qrels_lsp.api"],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    found = re.search(r"\|\s*(\d+)\s*\|\s*qrels_lsp\.api$", r.stderr, re.M)
    return int(found.group(1)) if found else -1


def run(runs: int = 20) -> dict[str, Any]:
    import compileall

    import qrels_lsp

    compileall.compile_dir(qrels_lsp.__path__[0], quiet=1)
    api_s: list[float] = []
    cli_s: list[float] = []
    for _ in range(runs):
        api_s.append(_wall(IMPORT_API))
        cli_s.append(_wall(CLI_HELP))
    return {
        "runs": runs,
        "api_s": api_s,
        "cli_s": cli_s,
        "api_median_s": statistics.median(api_s),
        "cli_median_s": statistics.median(cli_s),
        "api_importtime_us": _own_import_us(),
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=20)
    r = run(p.parse_args().runs)
    print(json.dumps({k: v for k, v in r.items() if not isinstance(v, list)}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
