// node --test test/bundled.test.js : the bundled server's environment (bundled.js), with fake
// interpreters that log what they are asked and answer as Python, venv and pip would. The real
// thing (a real venv, pip from the package index) runs in tests/editors/test_vscode.py.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('fs');
const os = require('os');
const path = require('path');
const bundled = require('../bundled');

const tmp = (prefix) => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));

function script(file, body) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`);
  fs.chmodSync(file, 0o755);
  return file;
}

/** A wheel in an extension folder, and a storage folder. */
function extension(version = '0.1.0', content = 'wheel') {
  const ext = tmp('qrels-ext-');
  fs.mkdirSync(path.join(ext, 'server'));
  const file = path.join(ext, 'server', `qrels_lsp-${version}-py3-none-any.whl`);
  fs.writeFileSync(file, content);
  const wheel = bundled.bundledWheel(ext);
  return { ext, storage: tmp('qrels-storage-'), wheel: { ...wheel, sha256: bundled.sha256(file) } };
}

/** A base Python whose `-m venv DIR` makes DIR/bin/python: a fake that logs its argv to `log`,
 * "installs" (pip exits `pipCode`) and says `version` on the import check. */
function fakeBase(dir, log, { version = '0.1.0', pipCode = 0, pipSays = 'Collecting numpy\nSuccessfully installed numpy' } = {}) {
  const venvPython = [
    `echo "env $*" >> ${log}`,
    'case "$*" in',
    `  *"-m pip"*) printf '%b\\n' "${pipSays.replace(/\n/g, '\\n')}"; exit ${pipCode} ;;`,
    `  *"import qrels_lsp"*) echo ${version} ;;`,
    'esac',
  ].join('\n');
  return script(
    path.join(dir, 'python3'),
    [
      `echo "base $*" >> ${log}`,
      'if [ "$1 $2 $3" = "-I -m venv" ]; then',
      '  mkdir -p "$4/bin"',
      `  cat > "$4/bin/python" <<'EOF'\n#!/bin/sh\n${venvPython}\nEOF`,
      '  chmod 755 "$4/bin/python"',
      'fi',
    ].join('\n'),
  );
}

test('bundledWheel: the wheel the .vsix carries, and its version', () => {
  const { ext, wheel } = extension('1.2.3');
  assert.equal(wheel.name, 'qrels_lsp-1.2.3-py3-none-any.whl');
  assert.equal(wheel.version, '1.2.3');
  assert.equal(wheel.file, path.join(ext, 'server', wheel.name));
  assert.equal(bundled.bundledWheel(tmp('qrels-empty-')), null);
});

test('the environment lives in the extension storage, and the server starts isolated', () => {
  const layout = bundled.envLayout('/s', 'linux');
  assert.equal(layout.dir, path.join('/s', 'server-env'));
  assert.deepEqual(bundled.serverCommand(layout), {
    command: path.join('/s', 'server-env', 'bin', 'python'),
    args: ['-I', '-m', 'qrels_lsp.cli', 'serve'],
  });
  assert.equal(bundled.envLayout('C:\\s', 'win32').python.endsWith(path.join('Scripts', 'python.exe')), true);
});

test('pythonCandidates: the Python extension first, then PATH; none from an untrusted workspace', () => {
  const ws = tmp('qrels-ws-');
  const inWs = script(path.join(ws, '.venv', 'bin', 'python'), '');
  const bin = tmp('qrels-bin-');
  const onPath = script(path.join(bin, 'python3'), '');
  const which = (name) => (name === 'python3' ? onPath : null);
  const inWorkspace = (exe) => (exe.startsWith(ws) ? ws : null);
  const untrusted = bundled.pythonCandidates({ selected: inWs, envPath: bin, platform: 'linux', which, inWorkspace, trusted: false });
  assert.deepEqual(untrusted.map((c) => [c.exe, !!c.refused]), [[inWs, true], [onPath, false]]);
  assert.match(untrusted[0].refused, /not trusted/);
  const trusted = bundled.pythonCandidates({ selected: inWs, envPath: bin, platform: 'linux', which, inWorkspace, trusted: true });
  assert.deepEqual(trusted.map((c) => [c.exe, c.how]), [
    [inWs, 'the interpreter the Python extension selected'],
    [onPath, 'python3 on PATH'],
  ]);
  assert.equal(bundled.versionOk([3, 10]), true);
  assert.equal(bundled.versionOk([3, 9]), false);
  assert.equal(bundled.versionOk(null), false);
});

test('ensure: creates the environment, installs the wheel, checks it, stamps it; then it is ready', async () => {
  const { storage, wheel } = extension();
  const log = path.join(storage, 'argv.log');
  const base = fakeBase(tmp('qrels-py-'), log);
  const layout = bundled.envLayout(storage, 'linux');
  assert.equal(bundled.plan(layout, wheel), 'create');
  const reports = [];
  const done = await bundled.ensure({ layout, wheel, base, cwd: storage, env: process.env, report: (m) => reports.push(m) });
  assert.deepEqual(done, { ok: true, version: '0.1.0', kind: 'create' });
  const argv = fs.readFileSync(log, 'utf8').trim().split('\n');
  assert.deepEqual(argv, [
    `base -I -m venv ${layout.dir}`,
    `env -I -m pip install --disable-pip-version-check --no-input ${wheel.file}`,
    'env -I -c import qrels_lsp; print(qrels_lsp.__version__)',
  ]);
  assert.ok(reports.includes('creating its Python environment'));
  assert.ok(reports.includes('installing qrels-lsp 0.1.0 and its dependencies: Collecting numpy'), reports);
  assert.equal(bundled.readStamp(layout).sha256, wheel.sha256);
  assert.equal(bundled.plan(layout, wheel), 'ready');
  assert.equal(fs.existsSync(layout.lock), false); // released
});

test('ensure: a new wheel (an upgraded extension) upgrades the environment in place', async () => {
  const { storage, wheel } = extension();
  const log = path.join(storage, 'argv.log');
  const base = fakeBase(tmp('qrels-py-'), log, { version: '0.2.0' });
  const layout = bundled.envLayout(storage, 'linux');
  const old = { ...wheel, sha256: 'old', version: '0.1.0' };
  await bundled.ensure({ layout, wheel: { ...old, version: '0.2.0' }, base, cwd: storage, env: process.env });
  fs.writeFileSync(log, '');
  const newer = { ...wheel, version: '0.2.0' }; // another sha256: the new extension's wheel
  assert.equal(bundled.plan(layout, newer), 'upgrade');
  const done = await bundled.ensure({ layout, wheel: newer, base, cwd: storage, env: process.env });
  assert.equal(done.ok, true);
  assert.equal(done.kind, 'upgrade');
  const argv = fs.readFileSync(log, 'utf8').trim().split('\n');
  assert.match(argv[0], /^env -I -m pip install .* --force-reinstall --no-deps /);
  assert.match(argv[1], /^env -I -m pip install .*qrels_lsp-0\.1\.0-py3-none-any\.whl$/);
  assert.ok(!argv.some((a) => a.startsWith('base')), 'no new venv');
  assert.equal(bundled.plan(layout, newer), 'ready');
  // the Python the environment was made from is gone: made again
  fs.rmSync(layout.python);
  assert.equal(bundled.plan(layout, newer), 'create');
});

test('ensure: each failure says what failed and how to fix it', async () => {
  const { storage, wheel } = extension();
  const layout = bundled.envLayout(storage, 'linux');
  const noVenv = script(path.join(tmp('qrels-py-'), 'python3'), 'echo "Error: ensurepip is not available" >&2; exit 1');
  const venvFailed = await bundled.ensure({ layout, wheel, base: noVenv, cwd: storage, env: process.env });
  assert.equal(venvFailed.ok, false);
  assert.match(venvFailed.error, /could not create its Python environment with .*python3/);
  assert.match(venvFailed.error, /sudo apt install python3-venv/);
  assert.match(venvFailed.error, /pipx install .*qrels_lsp-0\.1\.0-py3-none-any\.whl/);
  const offline = fakeBase(tmp('qrels-py-'), path.join(storage, 'log'), {
    pipCode: 1,
    pipSays: 'ERROR: Could not find a version that satisfies the requirement pygls',
  });
  const pipFailed = await bundled.ensure({ layout, wheel, base: offline, cwd: storage, env: process.env });
  assert.equal(pipFailed.ok, false);
  assert.match(pipFailed.error, /could not install its server's dependencies/);
  assert.match(pipFailed.error, /Could not find a version that satisfies the requirement pygls/);
  assert.match(pipFailed.error, /PIP_INDEX_URL/);
  assert.equal(bundled.plan(layout, wheel), 'create'); // no stamp: the next start tries again
  const wrong = fakeBase(tmp('qrels-py-'), path.join(storage, 'log'), { version: '9.9.9' });
  const checkFailed = await bundled.ensure({ layout, wheel, base: wrong, cwd: storage, env: process.env });
  assert.match(checkFailed.error, /version 9\.9\.9, not 0\.1\.0/);
  const missing = await bundled.ensure({ layout, wheel, base: path.join(storage, 'no-python'), cwd: storage, env: process.env });
  assert.equal(missing.ok, false);
  assert.match(missing.error, /could not create its Python environment/);
});

test('lock: a second window waits for the first install; a lock left by a crash is taken over', async () => {
  const { storage } = extension();
  const layout = bundled.envLayout(storage, 'linux');
  const release = await bundled.lock(layout);
  let second = false;
  const waiting = bundled.lock(layout, { wait: 20 }).then((r) => {
    second = true;
    return r;
  });
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(second, false);
  release();
  (await waiting)();
  fs.mkdirSync(layout.lock);
  const old = new Date(Date.now() - 60 * 60 * 1000);
  fs.utimesSync(layout.lock, old, old);
  (await bundled.lock(layout, { wait: 20 }))();
});

test('progressOf: what of pip\'s output is worth showing', () => {
  assert.equal(bundled.progressOf('Collecting numpy>=1.22'), 'Collecting numpy');
  assert.equal(bundled.progressOf('Downloading https://files/x.whl (16 MB)'), 'Downloading');
  assert.equal(bundled.progressOf('Installing collected packages: numpy, scipy'), 'Installing collected packages');
  assert.equal(bundled.progressOf('  Using cached numpy-2.0.whl'), null);
});
