/**
 * Language-server diagnostics for the file tools (`lsp_diagnostics` of
 * write_file and patch): the servers, started lazily per workspace root,
 * and the seam the tools call after a clean syntax check. The client itself
 * (./client.ts) loads only when the first server starts.
 *
 * @module
 */

export * from "./service.ts";
export { findWorkspaceRoot } from "./workspace.ts";
