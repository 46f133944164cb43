#!/usr/bin/env bash
# Builds editors/vscode/build/qrels-lsp-<version>.vsix (vsce), carrying the server's wheel. Needs
# Node >= 20, npm, and Python 3.10+ with pip ($QRELS_PYTHON, else python3).
# The TextMate grammars and JSON Schemas are copied from ../../grammars (the single source).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
cd "$HERE"
rm -rf grammars && mkdir -p grammars build
cp ../../grammars/trec-qrels.tmLanguage.json ../../grammars/trec-run.tmLanguage.json \
   ../../grammars/golden-set.schema.json ../../grammars/run.schema.json grammars/
# node_modules is reinstalled only when package-lock.json changed since the last install.
STAMP=node_modules/.qrels-lsp-lock.sha256
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$(sha256sum package-lock.json)" ]; then
  npm ci --prefer-offline --no-audit --no-fund >/dev/null
  sha256sum package-lock.json > "$STAMP"
fi
# The server the extension carries: the qrels-lsp wheel, built from a clean copy of the package
# (a build in the checkout would reuse its build/ folder, stale files and all).
ROOT="$(cd ../.. && pwd)"
PY="${QRELS_PYTHON:-$(command -v python3)}"
SRC="$(mktemp -d)"
trap 'rm -rf "$SRC"' EXIT
cp "$ROOT/pyproject.toml" "$ROOT/README.md" "$ROOT/LICENSE" "$ROOT/MANIFEST.in" "$SRC/"
cp -r "$ROOT/server" "$SRC/server"
find "$SRC/server" -name __pycache__ -prune -exec rm -rf {} +
rm -rf "$SRC"/server/*.egg-info
rm -rf server && mkdir -p server
"$PY" -m pip wheel --no-deps --quiet --disable-pip-version-check -w server "$SRC"
VERSION="$(node -p 'require("./package.json").version')"
WHEEL="$(ls server/qrels_lsp-*-py3-none-any.whl)"
case "$WHEEL" in
  "server/qrels_lsp-$VERSION-py3-none-any.whl") ;;
  *) echo "build.sh: $WHEEL does not match package.json's version $VERSION (qrels_lsp.__version__ is the one place to change it)" >&2; exit 1 ;;
esac
rm -f "build/qrels-lsp-$VERSION.vsix"
npx --no-install vsce package --out "build/qrels-lsp-$VERSION.vsix"
echo "$HERE/build/qrels-lsp-$VERSION.vsix"
