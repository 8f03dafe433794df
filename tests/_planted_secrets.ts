/**
 * Credentials planted in a parent environment and a profile's `.env`, for
 * tests that check a child process (a terminal command, the web terminal's
 * shell, an MCP server) sees none of them: names that do not look secret
 * (`MY_SERVICE_KEY`, `GITHUB_PAT`) and a password inside a URL included.
 *
 * @module
 */

import assert from "node:assert/strict";

/** Secrets in the parent's environment, by variable name. */
export const PLANTED_PARENT_SECRETS: Readonly<Record<string, string>> = Object.freeze({
  AWS_SECRET_ACCESS_KEY: "aws-secret-value",
  MY_SERVICE_KEY: "service-key-value",
  GITHUB_PAT: "ghp_pat_value",
  DATABASE_URL: "postgres://u:pw@h/db",
});

/** A `.env` value no child may see unless a passthrough names it. */
export const PLANTED_DOTENV_SECRET = "dotenv-secret-value";

/** `.env` text with {@link PLANTED_DOTENV_SECRET} and one variable meant to be passed on. */
export const PLANTED_DOTENV_TEXT =
  `DOTENV_SECRET=${PLANTED_DOTENV_SECRET}\nDOTENV_PASSED=dotenv-passed\n`;

/** Output of `env` as a record (a line without `=` is skipped). */
export function parseEnvDump(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return env;
}

/** Fails when `text` holds any planted secret, or any of `extra`, naming `where` it leaked. */
export function assertNoPlantedSecret(
  text: string,
  where: string,
  extra: readonly string[] = [],
): void {
  const values = [...Object.values(PLANTED_PARENT_SECRETS), PLANTED_DOTENV_SECRET, ...extra];
  for (const value of values) assert.ok(!text.includes(value), `${value} reached ${where}`);
}
