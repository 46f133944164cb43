// VS Code client for qrels-lsp: starts `qrels-lsp serve` over stdio for golden sets, runs and TREC files.
'use strict';

const fs = require('fs');
const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');
const {
  serverSettings, resolveServer, pythonVersion, pythonArgs, cwdOutside, documentPatterns, which, workspaceFolderOf,
} = require('./lib');
const bundled = require('./bundled');

const SECTION = 'qrels';
let client = null;
let starting = null;
let output = null;
let warned = false;
let storage = null; // the extension's global storage folder: the server's working directory
const REPORT_COMMAND = 'qrels-lsp.report'; // the server's: the golden set's HTML report
let reportPanel = null; // the report's webview, beside its golden set
let reportPath = null; // the golden set it shows
let wheel = null; // the server the .vsix carries (server/: its wheel, sha256 and lock), or null

function config() {
  return vscode.workspace.getConfiguration(SECTION);
}

/** `allow_outside` from the user's settings only: a workspace must not widen what the server reads. */
function userAllowOutside() {
  const inspected = config().inspect('allow_outside');
  return inspected ? inspected.globalValue : undefined;
}

/** The server's section with `allow_outside` replaced by the user's own value. */
function settingsFor(section) {
  return serverSettings(section, userAllowOutside());
}

/** qrels.server.command / pythonPath as the user set them, and as the workspace (or its folder) did. */
function serverSources(folders) {
  const scoped = vscode.workspace.getConfiguration(SECTION, folders.length > 0 ? folders[0].uri : undefined);
  const command = scoped.inspect('server.command') || {};
  const pythonPath = scoped.inspect('server.pythonPath') || {};
  const workspaceValue = (i) => (i.workspaceFolderValue !== undefined ? i.workspaceFolderValue : i.workspaceValue);
  return {
    user: { command: command.globalValue, pythonPath: pythonPath.globalValue },
    workspace: { command: workspaceValue(command), pythonPath: workspaceValue(pythonPath) },
  };
}

/** Golden set and run YAML stay language `yaml` (keeping YAML highlighting): select them by pattern. */
function documentSelector() {
  const section = { golden: config().get('golden'), runs: config().get('runs') };
  return [
    { language: 'trec-qrels' },
    { language: 'trec-run' },
    ...documentPatterns(section).map((pattern) => ({ scheme: 'file', pattern })),
    ...documentPatterns(section).map((pattern) => ({ scheme: 'untitled', pattern })),
  ];
}

function isOurs(doc) {
  return vscode.languages.match(documentSelector(), doc) > 0;
}

async function reportMissing(resolved) {
  if (resolved.untrusted) {
    const trust = 'Manage Workspace Trust';
    const choice = await vscode.window.showErrorMessage(resolved.error, trust);
    if (choice === trust) await vscode.commands.executeCommand('workbench.trust.manage');
    return;
  }
  const copy = 'Copy install command';
  const settings = 'Open settings';
  const choice = await vscode.window.showErrorMessage(
    `${resolved.error} Install it with \`${resolved.install}\`, or point qrels.server.command or ` +
      'qrels.server.pythonPath at it, then run "qrels-lsp: Restart the language server".',
    copy,
    settings,
  );
  if (choice === copy) await vscode.env.clipboard.writeText(resolved.install);
  if (choice === settings) await vscode.commands.executeCommand('workbench.action.openSettings', 'qrels.server');
}

/** The golden set's report in a webview beside it (the server builds it: `inline` returns the
 * page instead of opening a browser). The page is self-contained: no resource is loaded. */
async function showReport(path) {
  const c = client || (await start());
  if (!c || !path) return null;
  const result = await c.sendRequest('workspace/executeCommand', {
    command: REPORT_COMMAND,
    arguments: [{ path, inline: true }],
  });
  if (!result || typeof result.html !== 'string') return null;
  const title = `Report: ${path.split(/[\\/]/).pop()}`;
  if (!reportPanel) {
    reportPanel = vscode.window.createWebviewPanel(
      'qrelsReport',
      title,
      { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
      { enableScripts: true, localResourceRoots: [] }, // scripts: the table sorts; no files
    );
    reportPanel.onDidDispose(() => {
      reportPanel = null;
      reportPath = null;
    });
  }
  reportPath = path;
  reportPanel.title = title;
  reportPanel.webview.html = result.html;
  return { path };
}

function activeGoldenPath() {
  const editor = vscode.window.activeTextEditor;
  return editor && isOurs(editor.document) ? editor.document.uri.fsPath : reportPath;
}

/** The Python the Python extension selected for the workspace (its API), or null. */
async function selectedPython(folder) {
  const ext = vscode.extensions.getExtension('ms-python.python');
  if (!ext) return null;
  try {
    const api = ext.isActive ? ext.exports : await ext.activate();
    const environments = api && api.environments;
    if (!environments) return null;
    const active = environments.getActiveEnvironmentPath(folder);
    const env = active ? await environments.resolveEnvironment(active) : null;
    if (env && env.executable && env.executable.uri) return env.executable.uri.fsPath;
    return active && active.path ? active.path : null;
  } catch (err) {
    output.appendLine(`The Python extension did not say which interpreter it selected: ${err && err.message ? err.message : err}`);
    return null;
  }
}

async function reportFailure(message) {
  output.appendLine(message);
  const show = 'Show output';
  const retry = 'Retry';
  const settings = 'Open settings';
  const choice = await vscode.window.showErrorMessage(message, show, retry, settings);
  if (choice === show) output.show(true);
  if (choice === retry) await restart();
  if (choice === settings) await vscode.commands.executeCommand('workbench.action.openSettings', 'qrels.server');
}

/** The Python to make the bundled server's environment from: the Python extension's choice,
 * then python3/python on PATH, 3.10 or newer, none inside an untrusted workspace. */
async function basePython(workspaceFolders, folders, trusted) {
  const selected = await selectedPython(workspaceFolders.length > 0 ? workspaceFolders[0].uri : undefined);
  const candidates = bundled.pythonCandidates({
    selected,
    envPath: process.env.PATH,
    which,
    inWorkspace: (exe) => workspaceFolderOf(exe, folders),
    trusted,
  });
  const seen = [];
  for (const c of candidates) {
    if (c.refused) {
      seen.push(`${c.exe} (${c.how}): not used, ${c.refused}`);
      continue;
    }
    const version = pythonVersion(c.exe, storage);
    if (bundled.versionOk(version)) return c.exe;
    seen.push(`${c.exe} (${c.how}): ${version ? `Python ${version.join('.')}, too old` : 'does not run'}`);
  }
  const found = seen.length > 0 ? ` Found: ${seen.join('; ')}.` : ' None was found (no Python extension selection, no python3 on PATH).';
  reportFailure(
    `qrels-lsp needs Python ${bundled.MIN_PYTHON.join('.')} or newer to set up its server.${found} ` +
      'Install one (python.org, or your package manager) and select it with the Python extension, or set ' +
      'qrels.server.pythonPath to a Python with qrels-lsp installed.',
  );
  return null;
}

/** The bundled server, its environment made or upgraded first (with progress): how to start
 * it, or null (the failure was said). */
async function bundledServer(workspaceFolders, folders, trusted, note) {
  if (note) output.appendLine(`${note} Using the bundled server instead.`);
  fs.mkdirSync(storage, { recursive: true }); // the working directory of every step
  const layout = bundled.envLayout(storage);
  const kind = bundled.plan(layout, wheel);
  if (kind !== 'ready') {
    const stamp = bundled.readStamp(layout);
    const base = kind === 'create' ? await basePython(workspaceFolders, folders, trusted) : (stamp && stamp.python) || layout.python;
    if (!base) return null;
    output.appendLine(
      kind === 'create'
        ? `Setting up the bundled server ${wheel.version} in ${layout.dir} (Python ${base}).`
        : `Upgrading the bundled server ${stamp && stamp.version} -> ${wheel.version} in ${layout.dir}.`,
    );
    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'qrels-lsp', cancellable: false },
      (progress) =>
        bundled.ensure({
          layout,
          wheel,
          base,
          cwd: storage,
          env: process.env,
          report: (message) => progress.report({ message }),
          log: (line) => output.appendLine(line),
        }),
    );
    if (!result.ok) {
      reportFailure(result.error); // not awaited: its Retry restarts, which waits for this start
      return null;
    }
    output.appendLine(`The bundled server ${result.version} is ready.`);
  }
  return { ...bundled.serverCommand(layout), how: 'the bundled server' };
}

async function start() {
  if (client || starting) return starting;
  starting = launch().finally(() => {
    starting = null;
  });
  return starting;
}

async function launch() {
  const workspaceFolders = vscode.workspace.workspaceFolders || [];
  const folders = workspaceFolders.map((f) => f.uri.fsPath);
  const trusted = vscode.workspace.isTrusted;
  const sources = serverSources(workspaceFolders);
  if (!trusted && (sources.workspace.command || sources.workspace.pythonPath)) {
    output.appendLine('The workspace sets qrels.server.*: ignored until the workspace is trusted.');
  }
  const offerBundled = !!wheel && config().get('server.autoInstall') !== false;
  let resolved = resolveServer({ ...sources, trusted, folders, bundled: offerBundled });
  if (resolved.error) {
    output.appendLine(resolved.error);
    if (!warned) {
      warned = true;
      reportMissing(resolved);
    }
    return null;
  }
  if (resolved.bundled) {
    resolved = await bundledServer(workspaceFolders, folders, trusted, resolved.note);
    if (!resolved) return null;
  }
  // The server takes its root from the initialize request; its working directory is kept out
  // of the workspace so that `python -m` (which puts the working directory first on sys.path)
  // cannot import a `qrels_lsp/` the repository holds. PYTHONSAFEPATH (3.11+) does the same for
  // any Python the command starts.
  fs.mkdirSync(storage, { recursive: true });
  const cwd = cwdOutside([storage], folders) || storage;
  const args = resolved.python ? pythonArgs(resolved.args, pythonVersion(resolved.python, cwd)) : resolved.args;
  output.appendLine(`starting ${resolved.command} ${args.join(' ')} (from ${resolved.how}, in ${cwd})`);
  const serverOptions = {
    command: resolved.command,
    args,
    transport: TransportKind.stdio, // vscode-languageclient appends --stdio; `serve` accepts it
    options: { cwd, env: { PYTHONSAFEPATH: '1' } }, // merged into process.env by the client
  };
  const clientOptions = {
    documentSelector: documentSelector(),
    outputChannel: output,
    initializationOptions: { [SECTION]: settingsFor(config()) },
    middleware: {
      // The report lens's command shows the report here, in a webview, not in a browser.
      executeCommand: async (command, args, next) => {
        if (command === REPORT_COMMAND) return showReport(args && args[0] && args[0].path);
        return next(command, args);
      },
      workspace: {
        // The server asks for section "qrels": answer with its own keys, unset ones left out.
        configuration: async (params, token, next) => {
          const result = await next(params, token);
          return params.items.map((item, i) => (item.section === SECTION ? settingsFor(result[i]) : result[i]));
        },
      },
    },
  };
  const c = new LanguageClient('qrels', 'qrels-lsp', serverOptions, clientOptions);
  try {
    await c.start();
  } catch (err) {
    output.appendLine(`qrels-lsp failed to start: ${err && err.message ? err.message : err}`);
    vscode.window.showErrorMessage(
      `qrels-lsp failed to start (${resolved.command}): see the "qrels-lsp" output. ` +
        `Is it installed? \`${resolved.install || 'pipx install /path/to/qrels-lsp'}\``,
    );
    return null;
  }
  const info = c.initializeResult && c.initializeResult.serverInfo;
  if (info) output.appendLine(`${info.name} ${info.version || ''} is running.`);
  client = c;
  return c;
}

async function stop() {
  const c = client || (starting && (await starting));
  client = null;
  if (c) await c.stop().catch(() => undefined);
}

async function restart() {
  await stop();
  warned = false;
  await start();
}

function startIfNeeded() {
  if (!client && !starting && vscode.workspace.textDocuments.some(isOurs)) start();
}

async function activate(context) {
  output = vscode.window.createOutputChannel('qrels-lsp');
  storage = context.globalStorageUri.fsPath;
  wheel = bundled.bundledWheel(context.extensionPath);
  context.subscriptions.push(
    // Trust granted: the workspace's settings and .venv may now be used (user settings still first).
    vscode.workspace.onDidGrantWorkspaceTrust(() => restart()),
    output,
    vscode.commands.registerCommand('qrels.restartServer', restart),
    vscode.commands.registerCommand('qrels.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('qrels.showReport', () => showReport(activeGoldenPath())),
    // The report follows its golden set and runs: made again on every save of one of them.
    vscode.workspace.onDidSaveTextDocument((doc) => {
      if (reportPanel && reportPath && isOurs(doc)) showReport(reportPath);
    }),
    vscode.workspace.onDidOpenTextDocument((doc) => {
      if (isOurs(doc)) start();
    }),
    vscode.workspace.onDidChangeConfiguration(async (e) => {
      if (e.affectsConfiguration('qrels.server')) {
        await restart();
      } else if (e.affectsConfiguration('qrels.golden') || e.affectsConfiguration('qrels.runs')) {
        await restart(); // the document selector changes
      } else if (e.affectsConfiguration(SECTION) && client) {
        client.sendNotification('workspace/didChangeConfiguration', {
          settings: { [SECTION]: settingsFor(config()) },
        });
      }
    }),
  );
  // A workspace with golden sets starts the server at once, so that lenses come with the first file.
  const any = await vscode.workspace.findFiles('{**/*.qrels.yaml,**/*.qrels.yml,**/qrels-lsp.toml}', '**/node_modules/**', 1);
  if (any.length > 0) await start();
  else startIfNeeded();
}

function deactivate() {
  return stop();
}

module.exports = { activate, deactivate };
