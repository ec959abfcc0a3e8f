// The FlowMCP extension for VS Code: starts `flowmcp lsp` (a language server over stdio) for the
// `.mjs` files of a workspace. Everything the editor shows — diagnostics, hover, completion, go to
// definition, quick fixes — comes from the server; this file only starts and stops it.
'use strict';

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
    const config = vscode.workspace.getConfiguration('flowmcp');
    const command = config.get('path') || 'flowmcp';
    const args = ['lsp', ...(config.get('args') || [])];
    const serverOptions = { run: { command, args }, debug: { command, args } };
    const clientOptions = {
        // Schema, list, prompt, skill, selection and agent files are all `.mjs` modules.
        documentSelector: [{ scheme: 'file', language: 'javascript', pattern: '**/*.mjs' }],
    };
    client = new LanguageClient('flowmcp', 'FlowMCP', serverOptions, clientOptions);
    context.subscriptions.push(
        vscode.commands.registerCommand('flowmcp.restart', () => client.restart())
    );
    return client.start().catch((error) => {
        vscode.window.showErrorMessage(
            `FlowMCP: could not start \`${command} lsp\` (${error.message}). ` +
                'Install flowmcp (`cargo install --path crates/flowmcp-cli --locked`) or set `flowmcp.path`.'
        );
    });
}

function deactivate() {
    return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
