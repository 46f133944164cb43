#!/usr/bin/env bash
# Builds editors/vscode/build/qrels-lsp-<version>.vsix (vsce), carrying the server. Needs
# Node >= 20, npm, and Python 3.10+ with pip ($QRELS_PYTHON, else python3).
#
#   bash build.sh                 the .vsix
#   bash build.sh --server DIR    only what the .vsix carries in server/, into DIR (replaced)
#
# The server is the qrels-lsp wheel, its pip requirement with the wheel's sha256 (qrels-lsp.lock)
# and its dependencies' lock (requirements.lock, made by lock.sh): the extension installs both
# with --require-hashes. The TextMate grammars and JSON Schemas are copied from ../../grammars
# (the single source).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
if [ "${1:-}" = "--server" ]; then
  SERVER_ONLY="$(mkdir -p "${2:?build.sh --server DIR}" && cd "$2" && pwd)"
fi
cd "$HERE"
ROOT="$(cd ../.. && pwd)"
PY="${QRELS_PYTHON:-$(command -v python3)}"
VERSION="$(node -p 'require("./package.json").version')"

# DIR: the qrels-lsp wheel, built from a clean copy of the package (a build in the checkout would
# reuse its build/ folder, stale files and all), qrels-lsp.lock and requirements.lock.
SRC="$(mktemp -d)"
trap 'rm -rf "$SRC"' EXIT
server() {
  local out="$1" wheel
  cp "$ROOT/pyproject.toml" "$ROOT/README.md" "$ROOT/LICENSE" "$ROOT/MANIFEST.in" "$SRC/"
  cp -r "$ROOT/server" "$SRC/server"
  find "$SRC/server" -name __pycache__ -prune -exec rm -rf {} +
  rm -rf "$SRC"/server/*.egg-info
  rm -rf "$out" && mkdir -p "$out"
  "$PY" -m pip wheel --no-deps --quiet --disable-pip-version-check -w "$out" "$SRC"
  wheel="$(cd "$out" && ls qrels_lsp-*-py3-none-any.whl)"
  case "$wheel" in
    "qrels_lsp-$VERSION-py3-none-any.whl") ;;
    *) echo "build.sh: $wheel does not match package.json's version $VERSION (qrels_lsp.__version__ is the one place to change it)" >&2; exit 1 ;;
  esac
  echo "qrels-lsp==$VERSION --hash=sha256:$(sha256sum "$out/$wheel" | cut -d' ' -f1)" > "$out/qrels-lsp.lock"
  cp requirements.lock "$out/requirements.lock"
}
if [ -n "${SERVER_ONLY:-}" ]; then
  server "$SERVER_ONLY"
  exit 0
fi

rm -rf grammars && mkdir -p grammars build
cp ../../grammars/trec-qrels.tmLanguage.json ../../grammars/trec-run.tmLanguage.json \
   ../../grammars/golden-set.schema.json ../../grammars/run.schema.json grammars/
# node_modules is reinstalled only when package-lock.json changed since the last install.
STAMP=node_modules/.qrels-lsp-lock.sha256
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$(sha256sum package-lock.json)" ]; then
  npm ci --prefer-offline --no-audit --no-fund >/dev/null
  sha256sum package-lock.json > "$STAMP"
fi
server server
rm -f "build/qrels-lsp-$VERSION.vsix"
npx --no-install vsce package --out "build/qrels-lsp-$VERSION.vsix"
echo "$HERE/build/qrels-lsp-$VERSION.vsix"
