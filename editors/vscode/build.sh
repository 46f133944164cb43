#!/usr/bin/env bash
# Builds editors/vscode/build/qrels-lsp-<version>.vsix (vsce). Needs Node >= 20 and npm.
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
VERSION="$(node -p 'require("./package.json").version')"
rm -f "build/qrels-lsp-$VERSION.vsix"
npx --no-install vsce package --out "build/qrels-lsp-$VERSION.vsix"
echo "$HERE/build/qrels-lsp-$VERSION.vsix"
