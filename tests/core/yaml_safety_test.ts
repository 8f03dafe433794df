/**
 * YAML Herald did not write: aliases that name no anchor, alias bombs and
 * alias cycles are problems with a line and column (never an exception from
 * the parser or a blow-up), the same in config.yaml, profile.yaml, skill
 * frontmatter and bundle files; keys named after Object.prototype members
 * are plain unknown keys.
 */

import assert from "node:assert/strict";
import { MAX_YAML_ALIASES, readYaml, withoutPrototypeKeys } from "../../core/_util/yaml.ts";
import { ConfigKeyError, ConfigParseError } from "../../core/errors.ts";
import { getConfigValue, parseConfig, planConfigSet } from "../../core/config/mod.ts";
import { parseProfileMeta } from "../../core/profiles/mod.ts";
import { parseBundle } from "../../core/skills/bundles.ts";
import { parseSkill, platformOf } from "../../core/skills/skill.ts";

/** Nine levels of nine aliases each: 9^9 copies when expanded naively. */
function aliasBomb(): string {
  const lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"];
  for (let i = 1; i < 9; i++) {
    lines.push(`a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(", ")}]`);
  }
  return lines.join("\n") + "\n";
}

const UNRESOLVED = "model:\n  provider: openai\n  default: *nope\n";

function parseError(text: string): ConfigParseError {
  try {
    parseConfig(text, "config.yaml");
  } catch (error) {
    assert.ok(error instanceof ConfigParseError, String(error));
    return error;
  }
  assert.fail("expected a ConfigParseError");
}

Deno.test("an alias that names no anchor is a parse error at the alias", () => {
  const error = parseError(UNRESOLVED);
  assert.equal(error.line, 3);
  assert.equal(error.column, 12);
  assert.match(error.reason, /\*nope names no anchor &nope/);
  // An anchor defined after the alias does not count.
  assert.equal(parseError("a: *x\nb: &x 1\n").line, 1);
});

Deno.test("an alias bomb is a parse error with a position, stopped by the alias cap", () => {
  const error = parseError(aliasBomb());
  assert.ok(error.line >= 2 && error.line <= 9, `line ${error.line}`);
  assert.ok(error.column > 1);
  assert.match(error.reason, /aliases expand to too much data/);
});

Deno.test("more aliases than the cap is a parse error at the first one over it", () => {
  const lines = ["base: &b 1", "list:"];
  for (let i = 0; i <= MAX_YAML_ALIASES; i++) lines.push("  - *b");
  const error = parseError(lines.join("\n") + "\n");
  assert.equal(error.line, 3 + MAX_YAML_ALIASES);
  assert.equal(error.column, 5);
  assert.match(error.reason, new RegExp(`more than ${MAX_YAML_ALIASES} aliases`));
});

Deno.test("an alias inside the node it names is a parse error, not a circular value", () => {
  const error = parseError("a: &a\n  - 1\n  - *a\n");
  assert.equal(error.line, 3);
  assert.match(error.reason, /inside the node it names/);
});

Deno.test("ordinary aliases still work", () => {
  const read = readYaml("a: &x {k: 1}\nb: *x\nc: [*x, *x]\n");
  assert.ok(read.ok);
  assert.deepEqual(read.value, { a: { k: 1 }, b: { k: 1 }, c: [{ k: 1 }, { k: 1 }] });
  const { config } = parseConfig(
    "model:\n  default: &m some/model\nauxiliary:\n  vision:\n    model: *m\n",
    "config.yaml",
  );
  assert.equal(config.auxiliary.vision.model, "some/model");
});

Deno.test("a config edit on a file with a broken alias is refused with the position", () => {
  assert.throws(
    () => planConfigSet(UNRESOLVED, "config.yaml", "agent.max_turns", "3"),
    (error) => error instanceof ConfigParseError && error.line === 3,
  );
  // A value that is an alias bomb on its own is kept as the plain string it is.
  const plan = planConfigSet("", "config.yaml", "model.default", aliasBomb());
  assert.equal(plan.kind, "config");
});

Deno.test("profile.yaml, skill frontmatter and bundle files report alias problems, never throw", () => {
  for (const text of [UNRESOLVED, aliasBomb(), "a: &a [*a]\n"]) {
    const meta = parseProfileMeta(text);
    assert.match(meta.problem ?? "", /not valid YAML \(.+ at line \d+, column \d+\)/);
    assert.equal(meta.meta.description, "");
    const skill = parseSkill(`---\n${text}---\n# Body\n`, {
      dir: "/h/skills/x",
      file: "/h/skills/x/SKILL.md",
      relDir: "x",
    });
    assert.ok(!skill.ok && /not valid YAML: .+ at line \d+, column \d+/.test(skill.message));
    const bundle = parseBundle(text, "/h/skill-bundles/x.yaml");
    assert.ok(!bundle.ok && /not valid YAML/.test(bundle.message));
  }
});

Deno.test("keys named after Object.prototype members are unknown keys that pollute nothing", () => {
  const text = [
    "constructor: 1",
    "toString: x",
    "__proto__: {polluted: 1}",
    "model: {constructor: 1, hasOwnProperty: 2, default: m}",
    "agent: {__proto__: {max_turns: 3}}",
    "auxiliary: {__proto__: {model: x}, constructor: {model: y}}",
    "",
  ].join("\n");
  const { config, raw, warnings } = parseConfig(text, "config.yaml");
  assert.deepEqual(warnings.map((w) => w.path), [
    "constructor",
    "toString",
    "__proto__",
    "model.constructor",
    "model.hasOwnProperty",
    "agent.__proto__",
    "auxiliary.__proto__",
  ]);
  assert.equal(config.model.default, "m");
  assert.equal(config.agent.max_turns, 90);
  // A record may name an entry "constructor"; it is data like any other name.
  assert.deepEqual(Object.keys(config.auxiliary), ["constructor"]);
  assert.equal(Object.getPrototypeOf(config.auxiliary), Object.prototype);
  assert.ok(!Object.hasOwn(raw, "__proto__"));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(({} as Record<string, unknown>).max_turns, undefined);
  for (
    const key of ["constructor", "toString", "__proto__", "hasOwnProperty", "model.constructor"]
  ) {
    assert.equal(getConfigValue(config, key), undefined, key);
    assert.throws(() => planConfigSet("", "config.yaml", key, "1"), ConfigKeyError, key);
  }
  assert.throws(
    () => planConfigSet("", "config.yaml", "model.__proto__.x", "1"),
    ConfigKeyError,
  );
  assert.throws(
    () => planConfigSet("", "config.yaml", "mcp_servers.__proto__.command", "ls"),
    ConfigKeyError,
  );
});

Deno.test("a ${constructor} reference is not set, not the Object function", () => {
  const env = (name: string) => ({} as Record<string, string | undefined>)[name];
  const { config, warnings } = parseConfig("model:\n  default: ${constructor}\n", "c.yaml", env);
  assert.equal(config.model.default, "${constructor}");
  assert.match(warnings[0].message, /\$\{constructor\} is not set/);
});

Deno.test("copies without __proto__ keys keep every other key", () => {
  const input = JSON.parse('{"a": {"__proto__": {"x": 1}, "b": [ {"__proto__": 2, "c": 3} ]}}');
  assert.deepEqual(withoutPrototypeKeys(input), { a: { b: [{ c: 3 }] } });
});

Deno.test("a skill platform named after an Object.prototype member stays a name", () => {
  assert.equal(platformOf("constructor"), "constructor");
  assert.equal(platformOf("Darwin"), "macos");
});
