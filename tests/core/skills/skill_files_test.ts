import assert from "node:assert/strict";
import {
  bundleLabel,
  bundleSlug,
  parseBundle,
  parseSkill,
  platformOf,
  renderBundle,
  skillRunsOn,
  splitFrontmatter,
  uniqueSkillRefs,
} from "../../../core/skills/mod.ts";

const AT = {
  dir: "/h/skills/dev/code-review",
  file: "/h/skills/dev/code-review/SKILL.md",
  relDir: "dev/code-review",
  category: "dev",
};

Deno.test("a skill's frontmatter gives its name, slug, description, version and platforms", () => {
  const parsed = parseSkill(
    "---\nname: Code Review\ndescription: Review a diff\nversion: 1.2\nplatforms: [linux, darwin]\n---\n# Review\nSteps.\n",
    AT,
  );
  assert.ok(parsed.ok);
  assert.equal(parsed.skill.slug, "code-review");
  assert.equal(parsed.skill.name, "Code Review");
  assert.equal(parsed.skill.description, "Review a diff");
  assert.equal(parsed.skill.version, "1.2");
  assert.deepEqual(parsed.skill.platforms, ["linux", "macos"]);
  assert.equal(parsed.skill.category, "dev");
  assert.equal(parsed.body, "# Review\nSteps.\n");
});

Deno.test("a skill without frontmatter is named after its folder and described by its first line", () => {
  const parsed = parseSkill("# Title\n\nDo the thing carefully.\n", AT);
  assert.ok(parsed.ok);
  assert.equal(parsed.skill.name, "code-review");
  assert.equal(parsed.skill.description, "Do the thing carefully.");
  const empty = parseSkill("", AT);
  assert.ok(empty.ok && empty.skill.description === "Invoke the code-review skill");
});

Deno.test("a skill whose frontmatter is broken is refused with the reason", () => {
  const parsed = parseSkill("---\nname: [unclosed\n---\nbody\n", AT);
  assert.ok(!parsed.ok && /not valid YAML/.test(parsed.message));
  const list = parseSkill("---\n- a\n- b\n---\nbody\n", AT);
  assert.ok(!list.ok && /mapping/.test(list.message));
  const tagged = parseSkill("---\nname: !!js/function x\n---\n", AT);
  assert.ok(!tagged.ok && /tag/i.test(tagged.message));
});

Deno.test("frontmatter is split off only at the start of the file", () => {
  assert.deepEqual(splitFrontmatter("---\n---\nbody"), { frontmatter: "", body: "body" });
  assert.deepEqual(splitFrontmatter("text\n---\na: 1\n---\n"), {
    body: "text\n---\na: 1\n---\n",
  });
});

Deno.test("platforms are matched against this system's name", () => {
  assert.equal(platformOf("darwin"), "macos");
  assert.equal(platformOf("windows"), "windows");
  assert.equal(platformOf("linux"), "linux");
  assert.ok(skillRunsOn({}, "linux"));
  assert.ok(skillRunsOn({ platforms: ["linux"] }, "linux"));
  assert.ok(!skillRunsOn({ platforms: ["macos", "windows"] }, "linux"));
});

Deno.test("bundle names become slugs, with an underscore read as a hyphen", () => {
  assert.equal(bundleSlug("Backend Dev"), "backend-dev");
  assert.equal(bundleSlug("my_bundle"), "my-bundle");
  assert.equal(bundleSlug("  Café -- Ops!  "), "cafe-ops");
  assert.equal(bundleSlug("!!!"), "");
});

Deno.test("a bundle file gives name, slug, description, skills and instruction", () => {
  const parsed = parseBundle(
    "name: Backend Dev\ndescription: Server work\nskills:\n  - code-review\n  - ' debugging '\n  - ''\ninstruction: |\n  First line.\n  Second line.\nextra: ignored\n",
    "/h/skill-bundles/backend-dev.yaml",
  );
  assert.ok(parsed.ok);
  assert.deepEqual(parsed.bundle, {
    slug: "backend-dev",
    name: "Backend Dev",
    description: "Server work",
    skills: ["code-review", "debugging"],
    instruction: "First line.\nSecond line.",
    file: "/h/skill-bundles/backend-dev.yaml",
  });
});

Deno.test("a broken bundle file is reported, never thrown", () => {
  const cases: [string, RegExp][] = [
    ["name: x\nskills: [a\n", /not valid YAML/],
    ["- a\n- b\n", /must be a mapping/],
    ["skills: [a]\n", /needs a name/],
    ["name: x\n", /needs skills/],
    ["name: x\nskills: []\n", /lists no skill/],
    ["name: x\nskills: [a, 3]\n", /list of skill names/],
    ["name: x\nskills: [a]\ninstruction: [1]\n", /instruction must be text/],
    ["name: '***'\nskills: [a]\n", /no letters or digits/],
    ["name: x\nname: y\nskills: [a]\n", /not valid YAML/],
    ["name: !custom x\nskills: [a]\n", /tag/i],
    ["", /must be a mapping/],
  ];
  for (const [text, pattern] of cases) {
    const parsed = parseBundle(text, "/h/b.yaml");
    assert.ok(!parsed.ok, text);
    assert.match(parsed.message, pattern, text);
  }
});

Deno.test("a rendered bundle reads back the same, multi-line instruction included", () => {
  const text = renderBundle({
    name: "Release: prep",
    description: "Ship it",
    skills: ["a", "b"],
    instruction: "Line one.\nLine two: with colon.",
  });
  assert.ok(text.indexOf("name:") < text.indexOf("description:"));
  assert.ok(text.indexOf("description:") < text.indexOf("skills:"));
  assert.ok(text.indexOf("skills:") < text.indexOf("instruction:"));
  const parsed = parseBundle(text, "/h/b.yaml");
  assert.ok(parsed.ok);
  assert.equal(parsed.bundle.name, "Release: prep");
  assert.equal(parsed.bundle.instruction, "Line one.\nLine two: with colon.");
  assert.deepEqual(parsed.bundle.skills, ["a", "b"]);
});

Deno.test("a skill listed twice counts once in the bundle label", () => {
  assert.deepEqual(uniqueSkillRefs({ skills: ["a", "b", "A", "b_c", "b-c"] }), ["a", "b", "b_c"]);
  assert.equal(
    bundleLabel({ description: "Review", skills: ["a", "a", "b"] }),
    "Review (2 skills)",
  );
  assert.equal(bundleLabel({ description: "", skills: ["a"] }), "Skill bundle (1 skill)");
});
