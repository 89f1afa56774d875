'use strict';
// olmlint for VS Code: runs `olmlint server`, the language server of the olmlint command line,
// for the YAML and JSON files of the workspace. The server decides, as `olmlint lint` does,
// which catalog a file belongs to and lints that catalog whole; a file in no catalog gets no
// findings. Everything else (positions, rule pages, debounce, limits) is the server's, but for
// when the resolution's rules run on a large catalog (`olmlint.resolutionChecks`).

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

/** @type {LanguageClient | undefined} */
let client;

function createClient() {
  const settings = vscode.workspace.getConfiguration('olmlint');
  const command = settings.get('path') || 'olmlint';
  // No `transport`: the server speaks on stdin and stdout (`transport: stdio` would add a
  // `--stdio` argument, which `olmlint server` does not take).
  const serverOptions = { command, args: ['server'] };
  const clientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'yaml' },
      { scheme: 'file', language: 'json' },
    ],
    initializationOptions: { resolutionChecks: settings.get('resolutionChecks') || 'auto' },
  };
  return new LanguageClient('olmlint', 'olmlint', serverOptions, clientOptions);
}

async function start() {
  client = createClient();
  try {
    await client.start();
  } catch (e) {
    const path = vscode.workspace.getConfiguration('olmlint').get('path');
    vscode.window.showErrorMessage(
      `olmlint server did not start (${e instanceof Error ? e.message : e}). ` +
        `Install olmlint (https://github.com/olmlint/olmlint#install) or set "olmlint.path" ` +
        `(now "${path}") to the olmlint executable.`,
    );
  }
}

async function restart() {
  if (client) {
    const old = client;
    client = undefined;
    await old.stop().catch(() => undefined);
  }
  await start();
}

/** @param {vscode.ExtensionContext} context */
async function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('olmlint.restart', restart),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('olmlint.path') || e.affectsConfiguration('olmlint.resolutionChecks')) {
        restart();
      }
    }),
  );
  await start();
}

function deactivate() {
  // A client that failed to start has nothing to stop: its rejection is not news.
  return client ? client.stop().catch(() => undefined) : undefined;
}

module.exports = { activate, deactivate };
