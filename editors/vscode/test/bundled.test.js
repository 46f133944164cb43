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

/** An extension folder as build.sh lays it out (a wheel, its requirement with the wheel's
 * sha256, the dependencies' lock), and a storage folder. */
function extension(version = '0.1.0', content = 'wheel') {
  const ext = tmp('qrels-ext-');
  fs.mkdirSync(path.join(ext, 'server'));
  const file = path.join(ext, 'server', `qrels_lsp-${version}-py3-none-any.whl`);
  fs.writeFileSync(file, content);
  fs.writeFileSync(path.join(ext, 'server', 'qrels-lsp.lock'), `qrels-lsp==${version} --hash=sha256:${bundled.sha256(file)}\n`);
  fs.writeFileSync(path.join(ext, 'server', 'requirements.lock'), 'numpy==2.0.0 \\\n    --hash=sha256:' + 'a'.repeat(64) + '\n');
  return { ext, storage: tmp('qrels-storage-'), wheel: bundled.bundledWheel(ext) };
}

/** The pip options of every install step: exact pins with known hashes, wheels only. */
const PIP = 'env -I -m pip install --disable-pip-version-check --no-input --require-hashes --only-binary :all:';

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

test('bundledWheel: the wheel the .vsix carries, its version, its sha256 from the build, the lock', () => {
  const { ext, wheel } = extension('1.2.3');
  const server = path.join(ext, 'server');
  assert.equal(wheel.name, 'qrels_lsp-1.2.3-py3-none-any.whl');
  assert.equal(wheel.version, '1.2.3');
  assert.equal(wheel.file, path.join(server, wheel.name));
  assert.equal(wheel.sha256, bundled.sha256(wheel.file));
  assert.equal(wheel.requirement, path.join(server, 'qrels-lsp.lock'));
  assert.equal(wheel.lock, path.join(server, 'requirements.lock'));
  assert.equal(wheel.lockSha256, bundled.sha256(wheel.lock));
  // the sha256 is the build's, not the file's: pip is the one that checks them against each other
  fs.writeFileSync(wheel.requirement, `qrels-lsp==1.2.3 --hash=sha256:${'b'.repeat(64)}\n`);
  assert.equal(bundled.bundledWheel(ext).sha256, 'b'.repeat(64));
  // what build.sh writes, or nothing: another version, no hash, no lock
  fs.writeFileSync(wheel.requirement, `qrels-lsp==1.2.4 --hash=sha256:${'b'.repeat(64)}\n`);
  assert.equal(bundled.bundledWheel(ext), null);
  fs.writeFileSync(wheel.requirement, 'qrels-lsp==1.2.3\n');
  assert.equal(bundled.bundledWheel(ext), null);
  fs.writeFileSync(wheel.requirement, `qrels-lsp==1.2.3 --hash=sha256:${'b'.repeat(64)}\n`);
  fs.rmSync(wheel.lock);
  assert.equal(bundled.bundledWheel(ext), null);
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

test('ensure: creates the environment, installs the locked dependencies and the wheel by hash, checks it, stamps it; then it is ready', async () => {
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
    `${PIP} -r ${wheel.lock}`,
    `${PIP} --force-reinstall --no-deps --no-index --find-links ${path.dirname(wheel.file)} -r ${wheel.requirement}`,
    'env -I -c import qrels_lsp; print(qrels_lsp.__version__)',
  ]);
  assert.ok(reports.includes('creating its Python environment'));
  assert.ok(reports.includes('installing its dependencies (pinned, hash-checked): Collecting numpy'), reports);
  assert.ok(reports.includes('installing qrels-lsp 0.1.0'), reports);
  assert.equal(bundled.readStamp(layout).sha256, wheel.sha256);
  assert.equal(bundled.readStamp(layout).lock, wheel.lockSha256);
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
  // the dependencies to the lock's pins (already there: kept), then the new wheel over the old one
  assert.equal(argv[0], `${PIP} -r ${wheel.lock}`);
  assert.equal(argv[1], `${PIP} --force-reinstall --no-deps --no-index --find-links ${path.dirname(wheel.file)} -r ${wheel.requirement}`);
  assert.ok(!argv.some((a) => a.startsWith('base')), 'no new venv');
  assert.equal(bundled.plan(layout, newer), 'ready');
  // another lock with the same wheel is an upgrade too
  assert.equal(bundled.plan(layout, { ...newer, lockSha256: 'other' }), 'upgrade');
  // the Python the environment was made from is gone: made again
  fs.rmSync(layout.python);
  assert.equal(bundled.plan(layout, newer), 'create');
});

test('ensure: an environment an older extension filled without hashes gets every dependency again, checked', async () => {
  const { storage, wheel } = extension();
  const log = path.join(storage, 'argv.log');
  const base = fakeBase(tmp('qrels-py-'), log);
  const layout = bundled.envLayout(storage, 'linux');
  await bundled.ensure({ layout, wheel, base, cwd: storage, env: process.env });
  const { lock, ...unlocked } = bundled.readStamp(layout); // as the older extension stamped it
  assert.equal(lock, wheel.lockSha256);
  fs.writeFileSync(layout.stamp, JSON.stringify({ ...unlocked, sha256: 'old' }));
  fs.writeFileSync(log, '');
  assert.equal(bundled.plan(layout, wheel), 'upgrade');
  assert.equal((await bundled.ensure({ layout, wheel, base, cwd: storage, env: process.env })).ok, true);
  const argv = fs.readFileSync(log, 'utf8').trim().split('\n');
  assert.equal(argv[0], `${PIP} --force-reinstall -r ${wheel.lock}`);
  assert.equal(bundled.readStamp(layout).lock, wheel.lockSha256);
});

test('explainFailure: a pip failure says its cause on one line and the fix on the next', () => {
  const { wheel } = extension();
  const deps = { what: 'deps', title: 'installing its dependencies (pinned, hash-checked)' };
  const server = { what: 'server', title: 'installing qrels-lsp 0.1.0' };
  const ctx = { base: '/usr/bin/python3', wheel };
  const lines = (text) => {
    const out = text.split('\n');
    assert.equal(out.length, 2, text);
    assert.match(out[1], new RegExp(`pipx install ${wheel.file.replace(/[.\\]/g, '\\$&')}`));
    return out;
  };
  // no wheel of a pinned version for this platform (pip says so for --only-binary :all:)
  const [noWheel, noWheelFix] = lines(bundled.explainFailure(deps, [
    'Collecting google-re2==1.1.20251105',
    'ERROR: Could not find a version that satisfies the requirement google-re2==1.1.20251105 (from versions: none)',
    'ERROR: No matching distribution found for google-re2==1.1.20251105',
  ].join('\n'), ctx));
  assert.match(noWheel, /no wheel of google-re2==1\.1\.20251105 for this platform/);
  assert.match(noWheel, /never a source build/);
  assert.match(noWheelFix, /versions that have wheels here/);
  // a file whose sha256 is not the lock's
  const [mismatch, mismatchFix] = lines(bundled.explainFailure(deps, [
    'ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have updated the package versions, please update the hashes.',
    '    attrs==26.1.0 from https://files.example/attrs-26.1.0-py3-none-any.whl (from -r lock (line 3)):',
    '        Expected sha256 003c',
    '             Got        c647',
  ].join('\n'), ctx));
  assert.match(mismatch, /a file of attrs==26\.1\.0 whose sha256 is not the one the extension carries/);
  assert.match(mismatchFix, /PIP_INDEX_URL/);
  // the extension's own wheel is not the one it was built with
  const [damaged, damagedFix] = lines(bundled.explainFailure(server, 'ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE.', ctx));
  assert.match(damaged, /own wheel .* does not match the sha256 it was built with/);
  assert.match(damagedFix, /^Reinstall the extension/);
  // no network: pip retried, then found nothing
  const [offline, offlineFix] = lines(bundled.explainFailure(deps, [
    "WARNING: Retrying (Retry(total=0)) after connection broken by 'NewConnectionError(Failed to establish a new connection)': /simple/attrs/",
    'ERROR: No matching distribution found for attrs==26.1.0',
  ].join('\n'), ctx));
  assert.match(offline, /could not download its server's dependencies/);
  assert.match(offlineFix, /Check the network or proxy/);
  // anything else: the step and pip's last lines
  const [other] = lines(bundled.explainFailure(deps, 'ERROR: something else', ctx));
  assert.match(other, /installing its dependencies \(pinned, hash-checked\): ERROR: something else/);
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
  assert.match(pipFailed.error, /could not install its server \(installing its dependencies/);
  assert.match(pipFailed.error, /Could not find a version that satisfies the requirement pygls/);
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
