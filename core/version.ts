/**
 * Herald's version. Kept equal to `version` in deno.json (a test checks it).
 *
 * @module
 */

/** The release version of this build. */
export const VERSION = "0.1.0";

/** The Deno version Herald is built and tested with. */
export const SUPPORTED_DENO = "2.9.6";
