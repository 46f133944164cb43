// The bundled server (no `vscode` import, unit-tested by `node --test test/bundled.test.js`): the
// .vsix carries the qrels-lsp wheel; when no server is configured or found, the extension makes a
// private virtual environment in its global storage, installs the wheel there (its dependencies
// from the package index) and runs the server from it. Nothing of it lies in a workspace.
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { spawn } = require('child_process');

const MIN_PYTHON = [3, 10];
const LOCK_STALE_MS = 20 * 60 * 1000; // an install older than this was interrupted
const STEP_TIMEOUT_MS = 15 * 60 * 1000;

/** The wheel in the extension's `server/` folder: { file, name, version } or null. */
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
  return { file: path.join(dir, name), name, version: name.split('-')[1] };
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
 * What the environment needs for this wheel: 'ready' (made for it, its Python still runs),
 * 'upgrade' (made for another wheel: an older extension's), or 'create' (none, unfinished, or its
 * interpreter is gone, as when the Python it was made from was uninstalled).
 */
function plan(layout, wheel, stamp = readStamp(layout)) {
  if (!stamp || !fs.existsSync(layout.python)) return 'create';
  if (stamp.sha256 !== wheel.sha256) return 'upgrade';
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

/** The steps (argv lists, run in the storage folder) that bring the environment to `wheel`. */
function installSteps(kind, layout, base, wheel) {
  const pip = [layout.python, '-I', '-m', 'pip', 'install', '--disable-pip-version-check', '--no-input'];
  const steps = [];
  if (kind === 'create') steps.push({ what: 'venv', title: 'creating its Python environment', argv: [base, '-I', '-m', 'venv', layout.dir] });
  if (kind === 'upgrade') {
    // the new wheel over the old one (same version or not), then whatever new dependencies it has
    steps.push({ what: 'pip', title: `upgrading the server to ${wheel.version}`, argv: [...pip, '--force-reinstall', '--no-deps', wheel.file] });
  }
  steps.push({ what: 'pip', title: `installing qrels-lsp ${wheel.version} and its dependencies`, argv: [...pip, wheel.file] });
  steps.push({ what: 'check', title: 'checking the installed server', argv: [layout.python, '-I', '-c', 'import qrels_lsp; print(qrels_lsp.__version__)'] });
  return steps;
}

/** A failed step, said as what failed and how to fix it. */
function explainFailure(step, output, { base, wheel }) {
  const tail = (output || '').trim().split(/\r?\n/).filter(Boolean).slice(-3).join(' | ');
  const yourself =
    `Or install the server yourself (\`pipx install ${wheel.file}\`) and set qrels.server.command, ` +
    'then run "qrels-lsp: Restart the language server".';
  if (step.what === 'venv') {
    const venvMissing = /ensurepip|No module named venv|python3-venv/.test(output || '');
    return (
      `qrels-lsp could not create its Python environment with ${base}` +
      (venvMissing
        ? ': this Python has no venv module (Debian and Ubuntu ship it apart: `sudo apt install python3-venv`). '
        : ` (${tail || 'no output'}). `) +
      'Fix that, or select another Python 3.10+ with the Python extension or qrels.server.pythonPath. ' +
      yourself
    );
  }
  if (step.what === 'pip') {
    return (
      `qrels-lsp could not install its server's dependencies (pygls, numpy, scipy, ...) from the package index (${tail || 'no output'}). ` +
      'Check the network or proxy (pip reads PIP_INDEX_URL and pip.conf), then run "qrels-lsp: Restart the language server". ' +
      yourself
    );
  }
  return `qrels-lsp installed its server but it does not start (${tail || 'no output'}). ${yourself}`;
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
    for (const step of installSteps(kind, layout, base, wheel)) {
      report(step.title);
      log(`$ ${step.argv.join(' ')}`);
      const done = await runStep(step.argv, {
        cwd,
        env,
        onLine: (line) => {
          log(line);
          const message = step.what === 'pip' ? progressOf(line) : null;
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
    const stamp = { wheel: wheel.name, sha256: wheel.sha256, version, python: base, made: new Date().toISOString() };
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
