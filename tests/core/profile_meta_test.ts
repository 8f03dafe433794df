import assert from "node:assert/strict";
import {
  ActiveProfileError,
  applyProfileMeta,
  describerPrompt,
  isUserAuthored,
  MAX_DESCRIPTION_LENGTH,
  normalizeDescription,
  parseActiveProfile,
  parseProfileMeta,
} from "../../core/profiles/mod.ts";

Deno.test("profile.yaml fields are read with defaults for what is missing", () => {
  assert.deepEqual(parseProfileMeta(""), {
    meta: { description: "", description_auto: false },
  });
  assert.deepEqual(parseProfileMeta("# only a comment\n").meta.description, "");
  assert.deepEqual(parseProfileMeta("description: Reviews code.\ndisplay_name: R\n"), {
    meta: { description: "Reviews code.", description_auto: false },
  });
  assert.deepEqual(parseProfileMeta("description:\ndescription_auto: true\n").meta, {
    description: "",
    description_auto: true,
  });
});

Deno.test("a corrupt profile.yaml reads as the defaults with the problem named", () => {
  const cases: [string, RegExp][] = [
    ["description: [\n", /not valid YAML/],
    ["- a\n- b\n", /not a mapping/],
    ["just text\n", /not a mapping/],
    ["description: 5\n", /^description: /],
    ['description_auto: "yes"\n', /^description_auto: /],
    ["description: a\ndescription: b\n", /not valid YAML/],
  ];
  for (const [text, problem] of cases) {
    const parsed = parseProfileMeta(text);
    assert.deepEqual(parsed.meta, { description: "", description_auto: false }, text);
    assert.match(parsed.problem ?? "", problem, text);
  }
});

Deno.test("writing profile.yaml changes only the fields given and keeps other keys and comments", () => {
  const text = "# mine\ndisplay_name: Coder\ndescription: Old.\ndescription_auto: true\n";
  const updated = applyProfileMeta(text, { description: "  New one.  " });
  assert.match(updated, /^# mine\n/);
  assert.deepEqual(parseProfileMeta(updated).meta, {
    description: "New one.",
    description_auto: true,
  });
  assert.match(updated, /display_name: Coder/);
  assert.deepEqual(
    parseProfileMeta(applyProfileMeta(updated, { description_auto: false })).meta,
    { description: "New one.", description_auto: false },
  );
});

Deno.test("writing over a corrupt profile.yaml starts a fresh document", () => {
  for (const corrupt of ["description: [\n", "- a\n", "description: 5\n"]) {
    const updated = applyProfileMeta(corrupt, { description: "Fresh.", description_auto: false });
    assert.deepEqual(parseProfileMeta(updated), {
      meta: { description: "Fresh.", description_auto: false },
    });
  }
});

Deno.test("only a non-empty description that no model wrote is user-authored", () => {
  assert.equal(isUserAuthored({ description: "Mine.", description_auto: false }), true);
  assert.equal(isUserAuthored({ description: "Generated.", description_auto: true }), false);
  assert.equal(isUserAuthored({ description: "  ", description_auto: false }), false);
});

Deno.test("active_profile names a profile, default, or nothing", () => {
  assert.equal(parseActiveProfile(" Work\n", "/h/active_profile"), "work");
  assert.equal(parseActiveProfile("default\n", "/h/active_profile"), undefined);
  assert.equal(parseActiveProfile("\n", "/h/active_profile"), undefined);
  assert.throws(
    () => parseActiveProfile("../etc\n", "/h/active_profile"),
    (error: unknown) =>
      error instanceof ActiveProfileError && error.code === "active_profile_invalid" &&
      /\/h\/active_profile names "\.\.\/etc".*herald profile use default/.test(error.message),
  );
});

Deno.test("the describer prompt names the profile, its model and its skills", () => {
  const { system, prompt } = describerPrompt({
    profile: "coder",
    model: "gpt-test",
    provider: "custom",
    skills: [
      { name: "git", description: "Work with git repositories." },
      { name: "notes", description: "" },
    ],
  });
  assert.match(system, /one or two plain sentences/);
  assert.match(prompt, /Profile name: coder/);
  assert.match(prompt, /Model: gpt-test \(provider custom\)/);
  assert.match(prompt, /- git: Work with git repositories\./);
  assert.match(prompt, /- notes: \(no description\)/);
  const bare = describerPrompt({ profile: "x", skills: [] }).prompt;
  assert.match(bare, /Model: not set/);
  assert.match(bare, /Installed skills: none\./);
  const many = Array.from({ length: 100 }, (_, i) => ({ name: `s${i}`, description: "d" }));
  assert.match(describerPrompt({ profile: "x", skills: many }).prompt, /and 20 more/);
});

Deno.test("a model's answer is cut to two clean sentences of sane length", () => {
  assert.equal(
    normalizeDescription('  "Writes code.  Reviews it!\n\nShips it."  '),
    "Writes code. Reviews it!",
  );
  assert.equal(
    normalizeDescription("<think>hmm. ok.</think>**Description:** Handles v2.5 releases."),
    "Handles v2.5 releases.",
  );
  assert.equal(
    normalizeDescription("# Role\n- Runs `snake_case_tool` for __data__ work."),
    "Role Runs snake_case_tool for data work.",
  );
  assert.equal(normalizeDescription("  \n<think>only thinking</think> "), "");
  const long = normalizeDescription("word ".repeat(200));
  assert.ok(long.length <= MAX_DESCRIPTION_LENGTH);
  assert.match(long, /word…$/);
});
