// VS Code client for qrels-lsp: starts `qrels-lsp serve` over stdio for golden sets, runs and TREC files.
'use strict';

const vscode = require('vscode');
const { LanguageClient, TransportKind } = require('vscode-languageclient/node');
const { serverSettings, resolveServer, documentPatterns } = require('./lib');

const SECTION = 'qrels';
let client = null;
let starting = null;
let output = null;
let warned = false;

function config() {
  return vscode.workspace.getConfiguration(SECTION);
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

async function start() {
  if (client || starting) return starting;
  const folders = (vscode.workspace.workspaceFolders || []).map((f) => f.uri.fsPath);
  const resolved = resolveServer({
    command: config().get('server.command'),
    pythonPath: config().get('server.pythonPath'),
    folders,
  });
  if (resolved.error) {
    output.appendLine(resolved.error);
    if (!warned) {
      warned = true;
      reportMissing(resolved);
    }
    return null;
  }
  output.appendLine(`starting ${resolved.command} ${resolved.args.join(' ')} (from ${resolved.how})`);
  const serverOptions = {
    command: resolved.command,
    args: resolved.args,
    transport: TransportKind.stdio, // vscode-languageclient appends --stdio; `serve` accepts it
    options: { cwd: folders[0] },
  };
  const clientOptions = {
    documentSelector: documentSelector(),
    outputChannel: output,
    initializationOptions: { [SECTION]: serverSettings(config()) },
    middleware: {
      workspace: {
        // The server asks for section "qrels": answer with its own keys, unset ones left out.
        configuration: async (params, token, next) => {
          const result = await next(params, token);
          return params.items.map((item, i) => (item.section === SECTION ? serverSettings(result[i]) : result[i]));
        },
      },
    },
  };
  const c = new LanguageClient('qrels', 'qrels-lsp', serverOptions, clientOptions);
  starting = c
    .start()
    .then(() => {
      client = c;
      return c;
    })
    .catch((err) => {
      output.appendLine(`qrels-lsp failed to start: ${err && err.message ? err.message : err}`);
      vscode.window.showErrorMessage(
        `qrels-lsp failed to start (${resolved.command}): see the "qrels-lsp" output. ` +
          `Is it installed? \`${resolved.install || 'pipx install /path/to/qrels-lsp'}\``,
      );
      return null;
    })
    .finally(() => {
      starting = null;
    });
  return starting;
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
  context.subscriptions.push(
    output,
    vscode.commands.registerCommand('qrels.restartServer', restart),
    vscode.commands.registerCommand('qrels.showOutput', () => output.show(true)),
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
          settings: { [SECTION]: serverSettings(config()) },
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
