// Pure helpers of the extension (no `vscode` import), unit-tested by `node --test test/lib.test.js`.
'use strict';

const fs = require('fs');
const path = require('path');

/** The server settings (core/config.py SETTINGS): everything else under `qrels.` is the client's. */
const SERVER_SETTINGS = ['k', 'relevance_level', 'ignore', 'metrics', 'golden', 'runs', 'bm25_baseline', 'qrels'];

const INSTALL_COMMAND = 'pipx install /path/to/qrels-lsp';

const DEFAULT_GOLDEN = ['**/*.qrels.yaml', '**/*.qrels.yml'];
const DEFAULT_RUNS = ['**/*.run.yaml', '**/*.run.yml'];

/**
 * The `qrels` section as the server wants it: only its own keys, and only those the user set
 * (an unset VS Code setting is null), so that `qrels-lsp.toml` still applies to the rest.
 */
function serverSettings(section) {
  const out = {};
  for (const key of SERVER_SETTINGS) {
    const value = section ? section[key] : undefined;
    if (value !== null && value !== undefined) out[key] = value;
  }
  return out;
}

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** `name` as the OS would find it on PATH (absolute paths are checked as they are). */
function which(name, envPath, platform = process.platform) {
  if (name.includes('/') || name.includes('\\')) return isExecutable(name) ? name : null;
  const exts = platform === 'win32' ? ['.exe', '.cmd', '.bat', ''] : [''];
  for (const dir of (envPath || '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return null;
}

/**
 * How to start the server: { command, args, how } or { error, install } when it cannot be found.
 * Order: qrels.server.command, qrels.server.pythonPath, the workspace's .venv/venv, PATH.
 */
function resolveServer({ command, pythonPath, folders = [], envPath = process.env.PATH, platform = process.platform }) {
  if (Array.isArray(command) && command.length > 0) {
    const exe = which(command[0], envPath, platform);
    if (!exe) {
      return {
        error: `qrels-lsp: the server command \`${command[0]}\` (setting qrels.server.command) was not found.`,
        install: INSTALL_COMMAND,
      };
    }
    return { command: exe, args: command.slice(1), how: 'qrels.server.command' };
  }
  if (pythonPath) {
    const exe = which(pythonPath, envPath, platform);
    if (!exe) {
      return {
        error: `qrels-lsp: the Python interpreter \`${pythonPath}\` (setting qrels.server.pythonPath) was not found.`,
        install: `${pythonPath} -m pip install /path/to/qrels-lsp`,
      };
    }
    return { command: exe, args: ['-m', 'qrels_lsp.cli', 'serve'], how: 'qrels.server.pythonPath', python: exe };
  }
  const bin = platform === 'win32' ? 'Scripts' : 'bin';
  for (const folder of folders) {
    for (const venv of ['.venv', 'venv']) {
      const exe = which(path.join(folder, venv, bin, 'qrels-lsp'), envPath, platform);
      if (exe) return { command: exe, args: ['serve'], how: `${venv} of the workspace` };
    }
  }
  const exe = which('qrels-lsp', envPath, platform);
  if (exe) return { command: exe, args: ['serve'], how: 'PATH' };
  return {
    error: 'qrels-lsp: the language server is not installed (no `qrels-lsp` on PATH, nor in the workspace\'s .venv).',
    install: INSTALL_COMMAND,
  };
}

/** Glob patterns of the files the client hands to the server. */
function documentPatterns(section) {
  const golden = (section && section.golden) || DEFAULT_GOLDEN;
  const runs = (section && section.runs) || DEFAULT_RUNS;
  const seen = new Set();
  const out = [];
  for (const p of [...DEFAULT_GOLDEN, ...DEFAULT_RUNS, ...golden, ...runs]) {
    const glob = p.startsWith('**/') || p.startsWith('/') ? p : `**/${p}`;
    if (!seen.has(glob)) {
      seen.add(glob);
      out.push(glob);
    }
  }
  return out;
}

module.exports = { SERVER_SETTINGS, INSTALL_COMMAND, serverSettings, which, resolveServer, documentPatterns };
