/** The root home a profile's paths belong to: where the shared kanban.db lives. */

import assert from "node:assert/strict";
import { profilePaths, rootOf } from "../../../adapters/home/mod.ts";

Deno.test("rootOf gives the root home for the default profile and for a named one", () => {
  assert.equal(rootOf(profilePaths("/srv/herald", "default")), "/srv/herald");
  assert.equal(rootOf(profilePaths("/srv/herald", "coder")), "/srv/herald");
});
