/**
 * cli/errors.ts: an error's kind is its exit code, from one table; the
 * errors Herald raised before kinds grew keep their codes.
 */

import assert from "node:assert/strict";
import { captureOutput } from "../../cli/app.ts";
import { EXIT, EXIT_OF_KIND, reportError } from "../../cli/errors.ts";
import {
  ConfigKeyError,
  ConfigParseError,
  ERROR_KINDS,
  FileLockTimeoutError,
  HeraldError,
  HomeError,
  ModelError,
  NotFoundError,
  ProfileExistsError,
  ProfileNameError,
  ProfileNotFoundError,
  StoreError,
  ValueTooLargeError,
} from "../../core/errors.ts";
import { BundleExistsError, SkillNotFoundError } from "../../core/skills/mod.ts";

Deno.test("usage and the other caller mistakes exit 2, everything else exits 1", () => {
  assert.deepEqual(EXIT_OF_KIND, {
    usage: 2,
    not_found: 2,
    conflict: 2,
    too_large: 2,
    parse: 1,
    unavailable: 1,
    state: 1,
    internal: 1,
  });
  for (const kind of ERROR_KINDS) {
    const io = captureOutput();
    const code = reportError(new HeraldError("test", kind, "It failed"), io);
    assert.equal(code, EXIT_OF_KIND[kind], kind);
    assert.equal(io.stderr, "herald: It failed\n", kind);
  }
});

Deno.test("errors keep the exit codes they had before they carried a kind", () => {
  const cases: [Error, number][] = [
    [new ProfileNameError("Bad Name", "profile_name_invalid", "Invalid"), EXIT.usage],
    [new ProfileNotFoundError("work", "/h/profiles/work"), EXIT.usage],
    [new ProfileExistsError("work", "/h/profiles/work"), EXIT.usage],
    [new ConfigKeyError("modle.default", "model.default"), EXIT.usage],
    [new ValueTooLargeError("env_value", "TOKEN", 2_000_000, 1_048_576), EXIT.usage],
    [new NotFoundError("Session", "ses_1"), EXIT.usage],
    [new SkillNotFoundError("deploy", "skills"), EXIT.usage],
    [new BundleExistsError("backend", "skill-bundles/backend.yaml"), EXIT.usage],
    [new ModelError("model_not_configured", "No model"), EXIT.usage],
    [new ModelError("model_unavailable", "Provider down"), EXIT.failure],
    [new ConfigParseError("config.yaml", 1, 2, "bad"), EXIT.failure],
    [new FileLockTimeoutError("config.yaml", 10_000), EXIT.failure],
    [new HomeError("/h", "a file is in the way"), EXIT.failure],
    [new StoreError("state.db", "locked"), EXIT.failure],
  ];
  for (const [error, expected] of cases) {
    assert.equal(reportError(error, captureOutput()), expected, error.name);
  }
});
