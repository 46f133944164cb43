// node --test test/lib.test.js : the extension's pure helpers (server lookup, settings filtering, selector).
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const {
  serverSettings, resolveServer, workspaceFolderOf, pythonVersion, pythonArgs, cwdOutside, documentPatterns,
  INSTALL_COMMAND,
} = require('../lib');

function fakeExe(dir, name, body = '') {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`);
  fs.chmodSync(file, 0o755);
  return file;
}

const tmp = (prefix) => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));

/** A workspace with a .venv and venv server, and a qrels-lsp on a PATH folder outside it. */
function layout() {
  const ws = tmp('qrels-ws-');
  const venv = fakeExe(path.join(ws, '.venv', 'bin'), 'qrels-lsp');
  fakeExe(path.join(ws, 'venv', 'bin'), 'qrels-lsp');
  const outside = tmp('qrels-out-');
  const onPath = fakeExe(path.join(outside, 'bin'), 'qrels-lsp');
  const python = fakeExe(path.join(outside, 'bin'), 'python3');
  return { ws, venv, outside, onPath, python, pathDir: path.dirname(onPath) };
}

test('serverSettings keeps only the server keys the user set', () => {
  const section = {
    k: 5, relevance_level: null, ignore: ['QR110'], metrics: null, golden: null, runs: null,
    bm25_baseline: false, qrels: null, server: { command: ['x'], pythonPath: null }, trace: { server: 'off' },
  };
  assert.deepEqual(serverSettings(section), { k: 5, ignore: ['QR110'], bm25_baseline: false });
  assert.deepEqual(serverSettings(undefined), {});
});

test('serverSettings: allow_outside comes from the user value only, never from the section', () => {
  // the merged section may carry a workspace's value: it is dropped
  assert.deepEqual(serverSettings({ k: 3, allow_outside: true }), { k: 3 });
  assert.deepEqual(serverSettings({ allow_outside: true }, ['/data/corpus']), { allow_outside: ['/data/corpus'] });
  assert.deepEqual(serverSettings({ allow_outside: ['/etc'] }, false), { allow_outside: false });
  assert.deepEqual(serverSettings({}, null), {});
});

test('resolveServer: the user\'s qrels.server.command first', () => {
  const dir = tmp('qrels-');
  const exe = fakeExe(path.join(dir, 'bin'), 'my-qrels');
  assert.deepEqual(resolveServer({ user: { command: [exe, 'serve'] }, envPath: '' }), {
    command: exe, args: ['serve'], how: 'user setting qrels.server.command',
  });
  const missing = resolveServer({ user: { command: [path.join(dir, 'nope')] }, envPath: '' });
  assert.match(missing.error, /was not found/);
  assert.equal(missing.install, INSTALL_COMMAND);
});

test('resolveServer: pythonPath runs the module', () => {
  const { python } = layout();
  const r = resolveServer({ user: { pythonPath: python }, envPath: '' });
  assert.deepEqual(r.args, ['-m', 'qrels_lsp.cli', 'serve']);
  assert.equal(r.command, python);
  assert.equal(r.python, python);
  const bad = resolveServer({ user: { pythonPath: '/nonexistent/python' }, envPath: '' });
  assert.equal(bad.install, '/nonexistent/python -m pip install /path/to/qrels-lsp');
});

test('resolveServer, trusted: user settings, workspace settings, the workspace .venv, then PATH', () => {
  const { ws, venv, outside, onPath, python, pathDir } = layout();
  const wsTool = fakeExe(path.join(outside, 'ws-bin'), 'ws-qrels');
  const base = { trusted: true, folders: [ws], envPath: pathDir, platform: 'linux' };
  // the user's values win over the workspace's
  const both = { user: { pythonPath: python }, workspace: { command: [wsTool, 'serve'] } };
  assert.equal(resolveServer({ ...base, ...both }).command, python);
  assert.equal(resolveServer({ ...base, workspace: { command: [wsTool, 'serve'] } }).command, wsTool);
  assert.equal(resolveServer({ ...base, workspace: { pythonPath: python } }).how, 'workspace setting qrels.server.pythonPath');
  assert.equal(resolveServer(base).command, venv);
  fs.rmSync(path.join(ws, '.venv'), { recursive: true });
  assert.equal(resolveServer(base).command, path.join(ws, 'venv', 'bin', 'qrels-lsp'));
  fs.rmSync(path.join(ws, 'venv'), { recursive: true });
  assert.equal(resolveServer(base).command, onPath);
  const none = resolveServer({ ...base, envPath: '/nonexistent' });
  assert.match(none.error, /not installed/);
  assert.equal(none.install, 'pipx install /path/to/qrels-lsp');
});

test('resolveServer, untrusted: never the workspace .venv/venv nor workspace settings', () => {
  const { ws, onPath, pathDir, python } = layout();
  const base = { trusted: false, folders: [ws], envPath: pathDir, platform: 'linux' };
  assert.deepEqual(resolveServer(base), { command: onPath, args: ['serve'], how: 'PATH' });
  const wsSettings = { workspace: { command: [path.join(ws, '.venv', 'bin', 'qrels-lsp'), 'serve'], pythonPath: python } };
  assert.equal(resolveServer({ ...base, ...wsSettings }).command, onPath);
  // nothing on PATH: the message says why the workspace's server was not used
  const none = resolveServer({ ...base, envPath: '' });
  assert.match(none.error, /not used until the workspace is trusted/);
});

test('resolveServer, untrusted: a user setting or PATH entry inside the workspace is refused', () => {
  const { ws, venv, pathDir } = layout();
  const base = { trusted: false, folders: [ws], envPath: pathDir, platform: 'linux' };
  const viaCommand = resolveServer({ ...base, user: { command: [venv, 'serve'] } });
  assert.equal(viaCommand.command, undefined);
  assert.equal(viaCommand.untrusted, true);
  assert.match(viaCommand.error, /lies in the workspace folder/);
  assert.match(viaCommand.error, /Trusting the workspace .* allows it/);
  // relative to the workspace folder, as a workspace-relative path would be
  assert.equal(resolveServer({ ...base, user: { command: ['.venv/bin/qrels-lsp'] } }).untrusted, true);
  const wsPython = fakeExe(path.join(ws, 'tools'), 'python3');
  assert.equal(resolveServer({ ...base, user: { pythonPath: wsPython } }).untrusted, true);
  // an activated workspace venv on PATH (`code .` from its shell)
  const onPathInWs = resolveServer({ ...base, envPath: [path.join(ws, '.venv', 'bin'), pathDir].join(path.delimiter) });
  assert.equal(onPathInWs.untrusted, true);
  // a file whose name starts with two dots is still inside
  const dotted = fakeExe(ws, '..qrels-lsp');
  assert.equal(resolveServer({ ...base, user: { command: [dotted, 'serve'] } }).untrusted, true);
  assert.equal(workspaceFolderOf(path.join(path.dirname(ws), 'elsewhere'), [ws]), null);
  // trusted, the same settings are honoured
  assert.equal(resolveServer({ ...base, trusted: true, user: { command: [venv, 'serve'] } }).command, venv);
});

test('resolveServer, untrusted: symlinks do not smuggle workspace files in', () => {
  const { ws, outside, python, pathDir } = layout();
  const base = { trusted: false, folders: [ws], envPath: pathDir, platform: 'linux' };
  // a symlink in the workspace pointing outside: a venv's bin/python is one, and it still runs
  // the workspace venv's site-packages
  fs.mkdirSync(path.join(ws, 'env', 'bin'), { recursive: true });
  const link = path.join(ws, 'env', 'bin', 'python');
  fs.symlinkSync(python, link);
  assert.equal(resolveServer({ ...base, user: { pythonPath: link } }).untrusted, true);
  // a symlink outside pointing into the workspace
  const wsTool = fakeExe(path.join(ws, 'tools'), 'qrels-lsp');
  const outLink = path.join(outside, 'qrels-lsp-link');
  fs.symlinkSync(wsTool, outLink);
  assert.equal(resolveServer({ ...base, user: { command: [outLink, 'serve'] } }).untrusted, true);
  // outside -> inside -> outside: the hop through the workspace counts
  const twoHops = path.join(outside, 'two-hops');
  fs.symlinkSync(link, twoHops);
  assert.equal(resolveServer({ ...base, user: { pythonPath: twoHops } }).untrusted, true);
  // a workspace folder opened through a symlink
  const wsLink = path.join(outside, 'ws-link');
  fs.symlinkSync(ws, wsLink);
  assert.equal(workspaceFolderOf(wsTool, [wsLink]), wsLink);
  // a plain symlink outside pointing outside is fine
  const okLink = path.join(outside, 'python-link');
  fs.symlinkSync(python, okLink);
  assert.equal(resolveServer({ ...base, user: { pythonPath: okLink } }).command, okLink);
});

test('pythonVersion and pythonArgs: -P only where Python has it (3.11+)', () => {
  const dir = tmp('qrels-py-');
  const py310 = fakeExe(dir, 'python3.10', 'echo "Python 3.10.14"');
  const py313 = fakeExe(dir, 'python3.13', 'echo "Python 3.13.1"');
  assert.deepEqual(pythonVersion(py310, dir), [3, 10]);
  assert.deepEqual(pythonVersion(py313, dir), [3, 13]);
  assert.equal(pythonVersion(path.join(dir, 'nope'), dir), null);
  const args = ['-m', 'qrels_lsp.cli', 'serve'];
  assert.deepEqual(pythonArgs(args, [3, 10]), args);
  assert.deepEqual(pythonArgs(args, [3, 11]), ['-P', ...args]);
  assert.deepEqual(pythonArgs(args, [4, 0]), ['-P', ...args]);
  assert.deepEqual(pythonArgs(args, null), args);
});

test('cwdOutside: the server\'s working directory is never in a workspace folder', () => {
  const { ws, outside } = layout();
  assert.equal(cwdOutside([outside], [ws]), outside);
  assert.equal(cwdOutside([path.join(ws, 'storage')], [ws]), os.tmpdir());
});

test('documentPatterns: defaults plus the golden/runs globs, anchored anywhere', () => {
  assert.deepEqual(documentPatterns({}), [
    '**/*.qrels.yaml', '**/*.qrels.yml', '**/*.run.yaml', '**/*.run.yml',
    '**/*.run.json', '**/*.qrels.json', '**/*.run.tsv', '**/qrels/*.tsv',
  ]);
  assert.deepEqual(documentPatterns({ golden: ['eval/golden.yaml'] }).slice(-1), ['**/eval/golden.yaml']);
});

test('resolveServer: the bundled server only when nothing is configured or found', () => {
  const { ws, venv, onPath, pathDir } = layout();
  const base = { trusted: false, folders: [ws], envPath: pathDir, platform: 'linux', bundled: true };
  // found on PATH: that one, as before
  assert.equal(resolveServer(base).command, onPath);
  // the settings still win, and a missing configured server is an error, not the bundled one
  assert.equal(resolveServer({ ...base, user: { command: [onPath, 'serve'] } }).command, onPath);
  assert.match(resolveServer({ ...base, user: { command: ['/nope/qrels-lsp'] } }).error, /was not found/);
  assert.match(resolveServer({ ...base, user: { pythonPath: '/nope/python' } }).error, /was not found/);
  // nothing anywhere: the bundled server
  assert.deepEqual(resolveServer({ ...base, envPath: '' }), { bundled: true, how: 'the bundled server', note: null });
  // trusted, the workspace's .venv still comes first
  assert.equal(resolveServer({ ...base, trusted: true, envPath: '' }).command, venv);
  // untrusted, a qrels-lsp on PATH that lies in the workspace is refused: the bundled one, said why
  const inWs = resolveServer({ ...base, envPath: path.join(ws, '.venv', 'bin') });
  assert.equal(inWs.bundled, true);
  assert.match(inWs.note, /lies in the workspace folder/);
  // turned off: said how to install it, as before
  assert.match(resolveServer({ ...base, envPath: '', bundled: false }).error, /not installed/);
});
