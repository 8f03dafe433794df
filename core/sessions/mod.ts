/**
 * Sessions: the store contract, the session files contract, session search,
 * titles, internal sources, the JSON views and their errors.
 *
 * @module
 */

export type * from "./store.ts";
export type * from "./files.ts";
export { MESSAGE_ROLES } from "./store.ts";
export * from "./fts_query.ts";
export * from "./search.ts";
export * from "./recap.ts";
export * from "./search_tool.ts";
export * from "./sources.ts";
export * from "./titles.ts";
export * from "./views.ts";
export * from "./errors.ts";
