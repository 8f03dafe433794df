import assert from "node:assert/strict";
import { ProfileNameError } from "../../core/errors.ts";
import { parseProfileName, parseProfileSelector } from "../../core/profiles/mod.ts";

Deno.test("profile names are trimmed and lowercased", () => {
  assert.equal(parseProfileName("  Work "), "work");
  assert.equal(parseProfileName("a"), "a");
  assert.equal(parseProfileName("coder_2-x"), "coder_2-x");
  assert.equal(parseProfileName("9" + "a".repeat(63)), "9" + "a".repeat(63));
});

Deno.test("invalid profile names are refused with the name and the rule quoted", () => {
  for (const bad of ["../x", "Bad Name", "-lead", "_lead", "a/b", "a.b", "x".repeat(65), "é"]) {
    assert.throws(
      () => parseProfileName(bad),
      (error: unknown) =>
        error instanceof ProfileNameError && error.code === "profile_name_invalid" &&
        error.message.includes(`"${bad}"`) && error.message.includes("[a-z0-9][a-z0-9_-]{0,63}"),
      bad,
    );
  }
});

Deno.test("reserved and empty profile names are refused", () => {
  for (const reserved of ["default", "Herald", "root", "tmp", " TEST "]) {
    assert.throws(() => parseProfileName(reserved), /is reserved/);
  }
  assert.throws(() => parseProfileName("   "), /cannot be empty/);
});

Deno.test("a profile selector also accepts default", () => {
  assert.equal(parseProfileSelector("Default"), "default");
  assert.equal(parseProfileSelector("work"), "work");
  assert.throws(() => parseProfileSelector("root"), /is reserved/);
});
