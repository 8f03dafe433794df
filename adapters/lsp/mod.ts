/**
 * Language-server diagnostics for the file tools (`lsp_diagnostics` of
 * write_file and patch): the servers, started lazily per workspace root,
 * and the seam the tools call after a clean syntax check.
 *
 * @module
 */

export { LspClient, type LspClientOptions, LspTimeoutError } from "./client.ts";
export { heraldCheckout, resolveServerProgram } from "./command.ts";
export * from "./service.ts";
export { findWorkspaceRoot } from "./workspace.ts";
