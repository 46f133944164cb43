#!/usr/bin/env bash
# Writes editors/vscode/requirements.lock: the server's runtime dependencies (pyproject.toml's
# [project.dependencies]) pinned to exact versions, with the sha256 of every file of each version,
# for every platform and Python 3.10+ at once (uv's universal resolution). The VS Code extension
# installs them with `pip install --require-hashes --only-binary :all:` (bundled.js).
#
#   bash editors/vscode/lock.sh [DATE [OUT]]
#
# DATE (default: yesterday, UTC) is uv's --exclude-newer: only files uploaded up to the end of that
# day count, so the same DATE gives the same lock on any later day (the lock's header records it,
# and a test re-runs it). Not today: files uploaded later today would change it.
# Then every target the extension supports must have a wheel of every pin; the script fails
# naming the target and package otherwise. Needs uv ($UV, else uv on PATH; it is in the test extra).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
DATE="${1:-$(date -u -d yesterday +%F 2>/dev/null || date -u -v-1d +%F)}"
OUT="${2:-$HERE/requirements.lock}"
UV="${UV:-$(command -v uv || true)}"
[ -x "$UV" ] || { echo "lock.sh: uv not found (pip install uv, or set \$UV)" >&2; exit 1; }
UV="$(cd "$(dirname "$UV")" && pwd)/$(basename "$UV")"  # it runs from the root below
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac
# the targets one .vsix serves, each with a wheel of every pinned version (--only-binary :all:)
PLATFORMS=(x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-apple-darwin
           aarch64-apple-darwin x86_64-pc-windows-msvc)
PYTHONS=(3.10 3.11 3.12 3.13 3.14)

cd "$ROOT"  # the header and annotations name pyproject.toml as a relative path
# --no-config: no uv.toml (nor pyproject.toml [tool.uv]) of this machine decides what is locked
"$UV" pip compile pyproject.toml --quiet --no-config --universal --python-version 3.10 \
  --generate-hashes --exclude-newer "$DATE" \
  --custom-compile-command "bash editors/vscode/lock.sh $DATE" --output-file "$OUT"
for platform in "${PLATFORMS[@]}"; do
  for python in "${PYTHONS[@]}"; do
    # --offline: the resolution above has just cached every index page these read
    if ! why="$("$UV" pip compile "$OUT" --quiet --no-config --offline --no-deps --only-binary :all: \
        --python-platform "$platform" --python-version "$python" --exclude-newer "$DATE" \
        --output-file /dev/null 2>&1)"; then
      echo "lock.sh: no wheel for $platform, Python $python:" >&2
      echo "$why" >&2
      exit 1
    fi
  done
done
echo "$OUT"
