// Pure helpers of the extension (no `vscode` import), unit-tested by `node --test test/lib.test.js`.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { execFileSync } = require('child_process');

/** The server settings (core/config.py SETTINGS): everything else under `qrels.` is the client's. */
const SERVER_SETTINGS = [
  'k', 'relevance_level', 'ignore', 'metrics', 'golden', 'runs', 'bm25_baseline', 'corpus_ids', 'qrels',
  'compare_to', 'judgments', 'alpha', 'min_difference', 'min_judged', 'pool_depth', 'blind_judging',
  'fusions', 'chunks', 'format', 'preset', 'diff_base',
  'allow_outside',
];

const INSTALL_COMMAND = 'pipx install /path/to/qrels-lsp';

const DEFAULT_GOLDEN = ['**/*.qrels.yaml', '**/*.qrels.yml'];
const DEFAULT_RUNS = ['**/*.run.yaml', '**/*.run.yml'];
/** Files the server recognises by name beyond the YAML globs: JSON runs and qrels, MS MARCO
 * runs, BEIR qrels (core/formats/__init__.py `_by_name`). */
const FORMAT_PATTERNS = ['**/*.run.json', '**/*.qrels.json', '**/*.run.tsv', '**/qrels/*.tsv'];

/**
 * The `qrels` section as the server wants it: only its own keys, and only those the user set
 * (an unset VS Code setting is null), so that `qrels-lsp.toml` still applies to the rest.
 * `allow_outside` lets the server read outside the workspace: it is taken from `userAllowOutside`
 * (the user's own settings) and never from `section`, where a workspace value could have merged in.
 */
function serverSettings(section, userAllowOutside) {
  const out = {};
  for (const key of SERVER_SETTINGS) {
    const value = key === 'allow_outside' ? userAllowOutside : section ? section[key] : undefined;
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

/**
 * `name` as the OS would find it on PATH, as an absolute path (the server is started in another
 * working directory, so a relative one would name another file). A name with a slash is taken
 * relative to `base`.
 */
function which(name, envPath, platform = process.platform, base = process.cwd()) {
  if (name.includes('/') || name.includes('\\')) {
    const file = path.resolve(base, name);
    return isExecutable(file) ? file : null;
  }
  const exts = platform === 'win32' ? ['.exe', '.cmd', '.bat', ''] : [''];
  for (const dir of (envPath || '').split(path.delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = path.resolve(base, dir, name + ext);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return null;
}

function realpath(p) {
  try {
    return fs.realpathSync(p);
  } catch {
    return null;
  }
}

/**
 * Every path the OS goes through to reach `file`: the path itself, the same with its folder's
 * symlinks resolved, each symlink's target in turn, and the real path. All of them matter: a
 * venv's `bin/python` is a symlink to an interpreter outside the venv, yet it runs the venv's
 * site-packages, chosen by where the link itself lies.
 */
function pathsTo(file) {
  const out = [];
  let current = path.resolve(file);
  for (let hop = 0; hop < 40; hop++) {
    out.push(current);
    const dir = realpath(path.dirname(current));
    if (!dir) break;
    current = path.join(dir, path.basename(current));
    out.push(current);
    let link;
    try {
      link = fs.readlinkSync(current);
    } catch {
      break; // not a symlink (or gone): the chain ends here
    }
    current = path.resolve(dir, link);
  }
  const real = realpath(file);
  if (real) out.push(real);
  return out;
}

function isWithin(file, folder) {
  const rel = path.relative(folder, file);
  // `..x` is a name inside the folder; `..` and `../x` are outside it
  return !path.isAbsolute(rel) && rel !== '..' && !rel.startsWith(`..${path.sep}`);
}

/** The workspace folder that `file` lies in, or reaches through a symlink; null when none. */
function workspaceFolderOf(file, folders) {
  const forms = [];
  for (const folder of folders) {
    forms.push([folder, path.resolve(folder)]);
    const real = realpath(folder);
    if (real) forms.push([folder, real]);
  }
  for (const p of pathsTo(file)) {
    for (const [folder, form] of forms) {
      if (isWithin(p, form)) return folder;
    }
  }
  return null;
}

/**
 * How to start the server: { command, args, how, python? } or { error, install }.
 *
 * Order: the user's qrels.server.command, the user's qrels.server.pythonPath; then, only in a
 * trusted workspace, the workspace's values of those two settings and the workspace's
 * .venv/venv; then `qrels-lsp` on PATH; then, with `bundled`, the server the extension carries
 * ({ bundled: true }). The first setting that is set decides (a missing file is an error, not a
 * fall-through). In an untrusted workspace nothing that lies in a workspace
 * folder is run, whatever named it: opening a folder must not run code its author wrote.
 */
function resolveServer({
  user = {},
  workspace = {},
  trusted = false,
  folders = [],
  envPath = process.env.PATH,
  platform = process.platform,
  bundled = false,
}) {
  // Relative paths in settings are relative to the (first) workspace folder, as before.
  const base = folders[0] || process.cwd();
  const refuse = (exe, what) => {
    const folder = workspaceFolderOf(exe, folders);
    if (trusted || !folder) return null;
    return {
      error:
        `qrels-lsp: not starting \`${exe}\` (${what}): it lies in the workspace folder ${folder}, ` +
        'and this workspace is not trusted, so running it would run code from the workspace. ' +
        'Trusting the workspace (Workspaces: Manage Workspace Trust) allows it.',
      install: INSTALL_COMMAND,
      untrusted: true,
    };
  };
  const fromCommand = (command, where) => {
    const exe = which(command[0], envPath, platform, base);
    if (!exe) {
      return {
        error: `qrels-lsp: the server command \`${command[0]}\` (${where} qrels.server.command) was not found.`,
        install: INSTALL_COMMAND,
      };
    }
    return refuse(exe, `${where} qrels.server.command`) || { command: exe, args: command.slice(1), how: `${where} qrels.server.command` };
  };
  const fromPython = (pythonPath, where) => {
    const exe = which(pythonPath, envPath, platform, base);
    if (!exe) {
      return {
        error: `qrels-lsp: the Python interpreter \`${pythonPath}\` (${where} qrels.server.pythonPath) was not found.`,
        install: `${pythonPath} -m pip install /path/to/qrels-lsp`,
      };
    }
    return (
      refuse(exe, `${where} qrels.server.pythonPath`) || {
        command: exe,
        args: ['-m', 'qrels_lsp.cli', 'serve'],
        how: `${where} qrels.server.pythonPath`,
        python: exe,
      }
    );
  };
  const hasCommand = (v) => Array.isArray(v) && v.length > 0;
  const hasPython = (v) => typeof v === 'string' && v !== '';

  if (hasCommand(user.command)) return fromCommand(user.command, 'user setting');
  if (hasPython(user.pythonPath)) return fromPython(user.pythonPath, 'user setting');
  if (trusted) {
    if (hasCommand(workspace.command)) return fromCommand(workspace.command, 'workspace setting');
    if (hasPython(workspace.pythonPath)) return fromPython(workspace.pythonPath, 'workspace setting');
    const bin = platform === 'win32' ? 'Scripts' : 'bin';
    for (const folder of folders) {
      for (const venv of ['.venv', 'venv']) {
        const exe = which(path.join(folder, venv, bin, 'qrels-lsp'), envPath, platform, base);
        if (exe) return { command: exe, args: ['serve'], how: `${venv} of the workspace` };
      }
    }
  }
  const exe = which('qrels-lsp', envPath, platform, base);
  const refused = exe ? refuse(exe, 'found on PATH') : null;
  if (exe && !refused) return { command: exe, args: ['serve'], how: 'PATH' };
  // Nothing configured or found: the server the extension carries (its own environment in the
  // extension's storage, see bundled.js), unless the user turned that off.
  if (bundled) return { bundled: true, how: 'the bundled server', note: refused ? refused.error : null };
  if (refused) return refused;
  return {
    error: trusted
      ? 'qrels-lsp: the language server is not installed (no `qrels-lsp` on PATH, nor in the workspace\'s .venv).'
      : 'qrels-lsp: the language server is not installed (no `qrels-lsp` on PATH; the workspace\'s ' +
        '.venv and workspace settings are not used until the workspace is trusted).',
    install: INSTALL_COMMAND,
  };
}

/** The interpreter's version as [major, minor], or null. `-V` prints it before any import. */
function pythonVersion(exe, cwd) {
  try {
    const out = execFileSync(exe, ['-V'], { cwd, encoding: 'utf8', timeout: 10000, stdio: ['ignore', 'pipe', 'pipe'] });
    const m = /Python (\d+)\.(\d+)/.exec(out);
    return m ? [Number(m[1]), Number(m[2])] : null;
  } catch {
    return null;
  }
}

/**
 * `python -m qrels_lsp.cli serve`, kept from importing anything in its working directory: -P
 * (3.11+) takes the current folder off sys.path. Not -I, which would also drop the user
 * site-packages where `pip install --user` puts the server; 3.10 has no -P, and there the working
 * directory, chosen outside the workspace, is what keeps a `qrels_lsp/` in the repository out.
 */
function pythonArgs(args, version) {
  const safe = version && (version[0] > 3 || (version[0] === 3 && version[1] >= 11));
  return safe ? ['-P', ...args] : args;
}

/**
 * A working directory for the server outside every workspace folder (the server takes its root
 * from the initialize request, never from its working directory): the first of `candidates`,
 * then the system's temporary folder, that is; null when the workspace holds them all.
 */
function cwdOutside(candidates, folders) {
  for (const dir of [...candidates, os.tmpdir()]) {
    if (dir && !workspaceFolderOf(dir, folders)) return dir;
  }
  return null;
}

/** Glob patterns of the files the client hands to the server. */
function documentPatterns(section) {
  const golden = (section && section.golden) || DEFAULT_GOLDEN;
  const runs = (section && section.runs) || DEFAULT_RUNS;
  const seen = new Set();
  const out = [];
  for (const p of [...DEFAULT_GOLDEN, ...DEFAULT_RUNS, ...FORMAT_PATTERNS, ...golden, ...runs]) {
    const glob = p.startsWith('**/') || p.startsWith('/') ? p : `**/${p}`;
    if (!seen.has(glob)) {
      seen.add(glob);
      out.push(glob);
    }
  }
  return out;
}

module.exports = {
  SERVER_SETTINGS,
  INSTALL_COMMAND,
  serverSettings,
  which,
  workspaceFolderOf,
  resolveServer,
  pythonVersion,
  pythonArgs,
  cwdOutside,
  documentPatterns,
};
