// node --test test/lib.test.js : the extension's pure helpers (server lookup, settings filtering, selector).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { serverSettings, resolveServer, documentPatterns, INSTALL_COMMAND } = require('../lib');

function fakeExe(dir, name) {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, '#!/bin/sh\n');
  fs.chmodSync(file, 0o755);
  return file;
}

test('serverSettings keeps only the server keys the user set', () => {
  const section = {
    k: 5, relevance_level: null, ignore: ['QR110'], metrics: null, golden: null, runs: null,
    bm25_baseline: false, qrels: null, server: { command: ['x'], pythonPath: null }, trace: { server: 'off' },
  };
  assert.deepEqual(serverSettings(section), { k: 5, ignore: ['QR110'], bm25_baseline: false });
  assert.deepEqual(serverSettings(undefined), {});
});

test('resolveServer: qrels.server.command first', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qrels-'));
  const exe = fakeExe(path.join(dir, 'bin'), 'my-qrels');
  assert.deepEqual(resolveServer({ command: [exe, 'serve'], envPath: '' }), { command: exe, args: ['serve'], how: 'qrels.server.command' });
  const missing = resolveServer({ command: [path.join(dir, 'nope')], envPath: '' });
  assert.match(missing.error, /was not found/);
  assert.equal(missing.install, INSTALL_COMMAND);
});

test('resolveServer: pythonPath runs the module', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'qrels-'));
  const py = fakeExe(path.join(dir, 'bin'), 'python3');
  const r = resolveServer({ pythonPath: py, envPath: '' });
  assert.deepEqual(r.args, ['-m', 'qrels_lsp.cli', 'serve']);
  assert.equal(r.command, py);
  const bad = resolveServer({ pythonPath: path.join(dir, 'nope'), envPath: '' });
  assert.equal(bad.install, `${path.join(dir, 'nope')} -m pip install /path/to/qrels-lsp`);
});

test('resolveServer: workspace .venv, then PATH, then the install message', () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'qrels-ws-'));
  const venvExe = fakeExe(path.join(ws, '.venv', 'bin'), 'qrels-lsp');
  const onPath = fakeExe(fs.mkdtempSync(path.join(os.tmpdir(), 'qrels-path-')), 'qrels-lsp');
  const pathDir = path.dirname(onPath);
  assert.equal(resolveServer({ folders: [ws], envPath: pathDir, platform: 'linux' }).command, venvExe);
  assert.equal(resolveServer({ folders: [], envPath: pathDir, platform: 'linux' }).command, onPath);
  const none = resolveServer({ folders: [], envPath: '/nonexistent', platform: 'linux' });
  assert.match(none.error, /not installed/);
  assert.equal(none.install, 'pipx install /path/to/qrels-lsp');
});

test('documentPatterns: defaults plus the golden/runs globs, anchored anywhere', () => {
  assert.deepEqual(documentPatterns({}), ['**/*.qrels.yaml', '**/*.qrels.yml', '**/*.run.yaml', '**/*.run.yml']);
  assert.deepEqual(documentPatterns({ golden: ['eval/golden.yaml'] }).slice(-1), ['**/eval/golden.yaml']);
});
