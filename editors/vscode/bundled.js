// The bundled server (no `vscode` import, unit-tested by `node --test test/bundled.test.js`): the
// .vsix carries the qrels-lsp wheel and the lock of its dependencies; when no server is configured
// or found, the extension makes a private virtual environment in its global storage, installs them
// there (the dependencies from the package index, only the pinned wheels whose sha256 the lock
// holds) and runs the server from it. Nothing of it lies in a workspace.
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');

const MIN_PYTHON = [3, 10];
const LOCK_STALE_MS = 20 * 60 * 1000; // an install older than this was interrupted
const STEP_TIMEOUT_MS = 15 * 60 * 1000;

/**
 * What the extension's `server/` folder carries (build.sh): the qrels-lsp wheel, its pip
 * requirement pinned to the wheel's sha256 (`qrels-lsp.lock`, written when the wheel was built)
 * and the lock of its dependencies (`requirements.lock`): { file, name, version, sha256,
 * requirement, lock, lockSha256 }, or null when any of them is missing or they disagree.
 */
function bundledWheel(extensionDir) {
  const dir = path.join(extensionDir, 'server');
  let names = [];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return null;
  }
  const name = names.find((n) => /^qrels_lsp-[^-]+-py3-none-any\.whl$/.test(n));
  if (!name) return null;
  const version = name.split('-')[1];
  const requirement = path.join(dir, 'qrels-lsp.lock');
  const lock = path.join(dir, 'requirements.lock');
  let pinned;
  let lockSha256;
  try {
    pinned = /^qrels-lsp==(\S+) --hash=sha256:([0-9a-f]{64})\s*$/.exec(fs.readFileSync(requirement, 'utf8'));
    lockSha256 = sha256(lock);
  } catch {
    return null;
  }
  if (!pinned || pinned[1] !== version) return null;
  return { file: path.join(dir, name), name, version, sha256: pinned[2], requirement, lock, lockSha256 };
}

function sha256(file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** Where the environment lives in the extension's storage, and its files. */
function envLayout(storage, platform = process.platform) {
  const dir = path.join(storage, 'server-env');
  const bin = platform === 'win32' ? 'Scripts' : 'bin';
  return {
    dir,
    python: path.join(dir, bin, platform === 'win32' ? 'python.exe' : 'python'),
    stamp: path.join(dir, 'qrels-lsp-bundled.json'),
    lock: path.join(storage, 'server-env.lock'),
  };
}

function readStamp(layout) {
  try {
    return JSON.parse(fs.readFileSync(layout.stamp, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * What the environment needs for this wheel: 'ready' (made for it and its lock, its Python still
 * runs), 'upgrade' (made for another wheel or lock: an older extension's), or 'create' (none,
 * unfinished, or its interpreter is gone, as when the Python it was made from was uninstalled).
 */
function plan(layout, wheel, stamp = readStamp(layout)) {
  if (!stamp || !fs.existsSync(layout.python)) return 'create';
  if (stamp.sha256 !== wheel.sha256 || stamp.lock !== wheel.lockSha256) return 'upgrade';
  return 'ready';
}

/** The command that starts the installed server: isolated (-I) from the working directory,
 * PYTHONPATH and the user's site-packages: only the environment's own packages are imported. */
function serverCommand(layout) {
  return { command: layout.python, args: ['-I', '-m', 'qrels_lsp.cli', 'serve'] };
}

/** The interpreters to make the environment with, best first: the one the Python extension
 * selected, then python3 and python on PATH. In an untrusted workspace one that lies in a
 * workspace folder (its .venv) is left out: running it would run the workspace's code. */
function pythonCandidates({ selected, envPath, platform = process.platform, which, inWorkspace, trusted }) {
  const out = [];
  const seen = new Set();
  const add = (exe, how) => {
    if (!exe || seen.has(exe)) return;
    seen.add(exe);
    const folder = inWorkspace(exe);
    if (folder && !trusted) {
      out.push({ exe, how, refused: `it lies in the workspace folder ${folder}, which is not trusted` });
    } else {
      out.push({ exe, how });
    }
  };
  if (selected) add(selected, 'the interpreter the Python extension selected');
  const names = platform === 'win32' ? ['python', 'py'] : ['python3', 'python'];
  for (const name of names) add(which(name, envPath, platform), `${name} on PATH`);
  return out;
}

function versionOk(version) {
  return !!version && (version[0] > MIN_PYTHON[0] || (version[0] === MIN_PYTHON[0] && version[1] >= MIN_PYTHON[1]));
}

/**
 * The steps (argv lists, run in the storage folder) that bring the environment to `wheel`. Every
 * file pip installs must be a wheel whose sha256 the extension carries: the dependencies' exact
 * versions from the lock (pip moves an older environment's to them), then the server's wheel over
 * whatever version was there, from the extension's folder only. An environment stamped without a
 * lock was filled from the index unchecked by an older extension: its dependencies are installed
 * again, each file checked.
 */
function installSteps(kind, layout, base, wheel, stamp = null) {
  const pip = [
    layout.python, '-I', '-m', 'pip', 'install', '--disable-pip-version-check', '--no-input',
    '--require-hashes', '--only-binary', ':all:',
  ];
  const upgrade = kind === 'upgrade';
  const unchecked = upgrade && !(stamp && stamp.lock);
  const steps = [];
  if (kind === 'create') steps.push({ what: 'venv', title: 'creating its Python environment', argv: [base, '-I', '-m', 'venv', layout.dir] });
  steps.push({
    what: 'deps',
    title: `${upgrade ? 'upgrading' : 'installing'} its dependencies (pinned, hash-checked)`,
    argv: [...pip, ...(unchecked ? ['--force-reinstall'] : []), '-r', wheel.lock],
  });
  steps.push({
    what: 'server',
    title: upgrade ? `upgrading the server to ${wheel.version}` : `installing qrels-lsp ${wheel.version}`,
    argv: [...pip, '--force-reinstall', '--no-deps', '--no-index', '--find-links', path.dirname(wheel.file), '-r', wheel.requirement],
  });
  steps.push({ what: 'check', title: 'checking the installed server', argv: [layout.python, '-I', '-c', 'import qrels_lsp; print(qrels_lsp.__version__)'] });
  return steps;
}

/** pip's output says it could not reach the index (after its retries). */
const NETWORK = /connection broken by|NewConnectionError|Failed to establish a new connection|Could not fetch URL|ProxyError|SSLError|Name or service not known|Temporary failure in name resolution|Read timed out/;
const RESTART = 'run "qrels-lsp: Restart the language server"';

/** A failed pip step as [cause, fix]: the server's own wheel not the one built, no network, a
 * file whose hash is not the lock's, no wheel of a pinned version here, or else pip's last lines. */
function pipFailure(step, text, tail, { base, wheel }, yourself) {
  const mismatch = /DO NOT MATCH THE HASHES/.test(text);
  if (mismatch && step.what === 'server') {
    return [
      `qrels-lsp's own wheel (${wheel.file}) does not match the sha256 it was built with: the extension's files are damaged.`,
      `Reinstall the extension; or ${yourself}`,
    ];
  }
  if (NETWORK.test(text)) {
    return [
      `qrels-lsp could not download its server's dependencies (pygls, numpy, scipy, ...) from the package index (${tail}).`,
      `Check the network or proxy (pip reads PIP_INDEX_URL and pip.conf), then ${RESTART}; or ${yourself}`,
    ];
  }
  if (mismatch) {
    const which = /^\s+(\S+==\S+) from /m.exec(text);
    return [
      `qrels-lsp could not install its server: the package index gave a file of ${which ? which[1] : 'a dependency'} ` +
        'whose sha256 is not the one the extension carries for it (another index, a proxy or a tampered copy).',
      `Check which index pip uses (PIP_INDEX_URL, pip.conf), then ${RESTART}; or ${yourself}`,
    ];
  }
  const missing = /No matching distribution found for (\S+)/.exec(text);
  if (missing) {
    return [
      `qrels-lsp could not install its server: the package index has no wheel of ${missing[1]} for this platform ` +
        `(${process.platform} ${process.arch}, ${base}), and the extension installs only pinned wheels of known sha256, never a source build.`,
      `To get versions that have wheels here (or are built from source), ${yourself}`,
    ];
  }
  return [`qrels-lsp could not install its server (${step.title}: ${tail}).`, `See the output; or ${yourself}`];
}

/**
 * A failed step, said in two lines: what failed, then how to fix it (the notification shows them
 * as two sentences; every line of the step's output is in the output channel already).
 */
function explainFailure(step, output, { base, wheel }) {
  const text = output || '';
  const tail = text.trim().split(/\r?\n/).filter(Boolean).slice(-3).join(' | ') || 'no output';
  const yourself =
    `install the server yourself with \`pipx install ${wheel.file}\` (the extension finds it on PATH, ` +
    `or set qrels.server.command to it), then ${RESTART}.`;
  let said;
  if (step.what === 'venv') {
    const venvMissing = /ensurepip|No module named venv|python3-venv/.test(text);
    said = [
      `qrels-lsp could not create its Python environment with ${base}` +
        (venvMissing ? ': this Python has no venv module (Debian and Ubuntu ship it apart).' : ` (${tail}).`),
      (venvMissing ? 'Run `sudo apt install python3-venv`, or select' : 'Fix that, or select') +
        ` another Python 3.10+ with the Python extension or qrels.server.pythonPath; or ${yourself}`,
    ];
  } else if (step.what === 'deps' || step.what === 'server') {
    said = pipFailure(step, text, tail, { base, wheel }, yourself);
  } else {
    said = [`qrels-lsp installed its server but it does not start (${tail}).`, `Reinstall the extension; or ${yourself}`];
  }
  return said.join('\n');
}

/** Runs one argv with a timeout; resolves { code, output }; each line of output goes to `onLine`. */
function runStep(argv, { cwd, env, onLine = () => undefined, timeout = STEP_TIMEOUT_MS }) {
  return new Promise((resolve) => {
    let output = '';
    let child;
    try {
      child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (err) {
      resolve({ code: -1, output: String(err && err.message ? err.message : err) });
      return;
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
    const take = (chunk) => {
      const text = chunk.toString();
      output += text;
      for (const line of text.split(/\r?\n/)) if (line.trim()) onLine(line.trim());
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('error', (err) => {
      output += String(err.message || err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code: code === null ? -1 : code, output });
    });
  });
}

/** The progress message a line of pip's output is worth, or null. */
function progressOf(line) {
  const m = /^(Collecting|Downloading)\s+(\S+)/.exec(line);
  if (m) return m[2].includes('://') ? m[1] : `${m[1]} ${m[2].replace(/[<>=!~;(].*$/, '')}`;
  const phase = /^(Installing collected packages|Successfully installed)/.exec(line);
  return phase ? phase[1] : null;
}

/** Takes the storage's install lock (another window may be installing): resolves a release
 * function, after waiting for the other install to end; a lock left by a crash is taken over. */
async function lock(layout, { wait = 1000, stale = LOCK_STALE_MS } = {}) {
  fs.mkdirSync(path.dirname(layout.lock), { recursive: true });
  for (;;) {
    try {
      fs.mkdirSync(layout.lock);
      return () => fs.rmSync(layout.lock, { recursive: true, force: true });
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      let age = 0;
      try {
        age = Date.now() - fs.statSync(layout.lock).mtimeMs;
      } catch {
        continue; // released meanwhile
      }
      if (age > stale) fs.rmSync(layout.lock, { recursive: true, force: true });
      else await new Promise((r) => setTimeout(r, wait));
    }
  }
}

/**
 * Makes the environment ready for `wheel` (see `plan`), with `base` the Python to create it
 * from. `report(message)` is told each step and pip's progress; `log(line)` gets every line.
 * Resolves { ok: true, version } or { ok: false, error } (what failed, how to fix it).
 */
async function ensure({ layout, wheel, base, cwd, env, report = () => undefined, log = () => undefined }) {
  const release = await lock(layout);
  try {
    const kind = plan(layout, wheel);
    if (kind === 'ready') return { ok: true, version: readStamp(layout).version, kind };
    if (kind === 'create') fs.rmSync(layout.dir, { recursive: true, force: true });
    let version = null;
    for (const step of installSteps(kind, layout, base, wheel, readStamp(layout))) {
      report(step.title);
      log(`$ ${step.argv.join(' ')}`);
      const done = await runStep(step.argv, {
        cwd,
        env,
        onLine: (line) => {
          log(line);
          const message = step.what === 'deps' || step.what === 'server' ? progressOf(line) : null;
          if (message) report(`${step.title}: ${message}`);
        },
      });
      if (done.code !== 0) return { ok: false, error: explainFailure(step, done.output, { base, wheel }) };
      if (step.what === 'check') version = done.output.trim().split(/\r?\n/).pop();
    }
    if (version !== wheel.version) {
      const error = explainFailure({ what: 'check' }, `it says version ${version}, not ${wheel.version}`, { base, wheel });
      return { ok: false, error };
    }
    const stamp = {
      wheel: wheel.name, sha256: wheel.sha256, lock: wheel.lockSha256, version, python: base, made: new Date().toISOString(),
    };
    fs.writeFileSync(layout.stamp, JSON.stringify(stamp, null, 1));
    return { ok: true, version, kind };
  } finally {
    release();
  }
}

module.exports = {
  MIN_PYTHON,
  bundledWheel,
  sha256,
  envLayout,
  readStamp,
  plan,
  serverCommand,
  pythonCandidates,
  versionOk,
  installSteps,
  explainFailure,
  runStep,
  progressOf,
  lock,
  ensure,
};
