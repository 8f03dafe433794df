/**
 * Access policies for the runner's tests, made by core/channels/access.ts
 * from the variables a profile would set.
 *
 * @module
 */

import { type AccessPolicy, accessPolicy } from "../../../core/channels/access.ts";

function policyFrom(env: Record<string, string>): AccessPolicy {
  return accessPolicy("test", (name) => env[name], {});
}

/** `TEST_ALLOW_ALL_USERS=true`. */
export function allowEveryone(): AccessPolicy {
  return policyFrom({ TEST_ALLOW_ALL_USERS: "true" });
}

/** `TEST_ALLOWED_USERS=<users>`, and `TEST_ALLOWED_GROUPS=<groups>`. */
export function allowOnly(users: string[], groups: string[] = []): AccessPolicy {
  return policyFrom({ TEST_ALLOWED_USERS: users.join(","), TEST_ALLOWED_GROUPS: groups.join(",") });
}
