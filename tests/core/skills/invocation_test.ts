import assert from "node:assert/strict";
import { createSlashRegistry, type SlashContext } from "../../../core/commands/mod.ts";
import {
  buildBundleMessage,
  buildSkillMessage,
  completeSlash,
  COMPLETION_MARKERS,
  resolveBundle,
} from "../../../core/skills/mod.ts";
import { bundle, memoryCatalog, skill } from "./_fixtures.ts";

const context: SlashContext = { sessionId: "s", model: "m", provider: "custom" };

function sent(outcome: unknown): string {
  const o = outcome as { kind: string; message?: string };
  assert.equal(o?.kind, "send", JSON.stringify(outcome));
  return o.message!;
}

Deno.test("bundle resolution loads a skill listed twice once and sorts out missing and foreign ones", () => {
  const snapshot = {
    skills: [skill("a"), skill("b-c", { relDir: "dev/b-c" })],
    hidden: [skill("mac-only", { platforms: ["macos"] })],
  };
  const resolution = resolveBundle(
    { skills: ["a", "missing", "A", "b_c", "dev/b-c", "mac-only"] },
    snapshot,
  );
  assert.deepEqual(resolution.skills.map((s) => s.slug), ["a", "b-c"]);
  assert.deepEqual(resolution.missing, ["missing"]);
  assert.deepEqual(resolution.unavailable, ["mac-only"]);
});

Deno.test("the bundle message puts the instruction before the skills, then each skill once", () => {
  const docs = ["a", "b"].map((slug) => ({ skill: skill(slug), body: `BODY ${slug}`, files: [] }));
  const message = buildBundleMessage(
    { name: "Work", slug: "work", instruction: "Do it in order." },
    docs,
    { missing: ["ghost"], unavailable: [], failed: [] },
    "fix the bug",
  );
  const at = (text: string) => message.indexOf(text);
  assert.ok(at("Skills missing (skipped): ghost") > 0);
  assert.ok(at("Do it in order.") > 0 && at("Do it in order.") < at("BODY a"));
  assert.ok(at("User request: fix the bug") < at("BODY a"));
  assert.ok(at("BODY a") < at("BODY b"));
  assert.equal(message.split("BODY a").length, 2);
  assert.ok(message.includes("[Skill directory: /h/skills/a."));
});

Deno.test("the skill message carries the skill, its folder, its files and the user's text", () => {
  const message = buildSkillMessage(
    { skill: skill("review"), body: "Check everything.", files: ["references/list.md"] },
    "the last commit",
  );
  assert.ok(message.startsWith('[The user invoked the skill "review" (/review).'));
  assert.ok(message.includes("Check everything."));
  assert.ok(message.includes("[Skill directory: /h/skills/review."));
  assert.ok(message.includes("references/list.md"));
  assert.ok(message.trimEnd().endsWith("User request: the last commit"));
  assert.ok(!buildSkillMessage({ skill: skill("x"), body: "b", files: [] }, "").includes("User"));
});

Deno.test("a bundle wins over a skill of the same name, and an underscore finds a hyphen", async () => {
  const registry = createSlashRegistry({
    catalog: memoryCatalog({
      skills: [skill("review"), skill("lint"), skill("solo")],
      bundles: [bundle("review", ["lint"]), bundle("my-bundle", ["solo"])],
    }),
  });
  const review = sent(await registry.dispatch("/review now", context));
  assert.ok(review.includes('skill bundle "review"'));
  assert.ok(review.includes("BODY OF lint") && !review.includes("BODY OF review"));
  const mine = sent(await registry.dispatch("/my_bundle go", context));
  assert.ok(mine.includes('skill bundle "my-bundle"') && mine.includes("BODY OF solo"));
  const single = sent(await registry.dispatch("/solo please", context));
  assert.ok(single.includes('skill "solo"') && single.includes("User request: please"));
});

Deno.test("built-in commands win over bundles and skills of the same name", async () => {
  const registry = createSlashRegistry({
    catalog: memoryCatalog({ skills: [skill("help")], bundles: [bundle("model", ["help"])] }),
  });
  const help = await registry.dispatch("/help", context);
  assert.ok(help?.kind === "reply" && help.text.startsWith("Commands:"));
  const model = await registry.dispatch("/model", context);
  assert.ok(model?.kind === "reply" && model.text.startsWith("Model:"));
});

Deno.test("a bundle whose skills are all missing replies instead of sending", async () => {
  const registry = createSlashRegistry({
    catalog: memoryCatalog({ bundles: [bundle("empty", ["gone", "lost"])] }),
  });
  const outcome = await registry.dispatch("/empty", context);
  assert.ok(outcome?.kind === "reply" && /gone, lost/.test(outcome.text));
});

Deno.test("a catalog that fails becomes a reply, and unknown names still point at /help", async () => {
  const registry = createSlashRegistry({
    catalog: {
      snapshot: () => Promise.reject(new Error("disk on fire")),
      read: () => Promise.reject(),
    },
  });
  const outcome = await registry.dispatch("/anything", context);
  assert.ok(outcome?.kind === "reply" && /disk on fire/.test(outcome.text));
  const plain = createSlashRegistry({ catalog: memoryCatalog({}) });
  const unknown = await plain.dispatch("/nope", context);
  assert.ok(unknown?.kind === "reply" && /type \/help/.test(unknown.text));
});

Deno.test("/bundles lists bundles with their skills, and /help mentions skills and bundles", async () => {
  const registry = createSlashRegistry({
    catalog: memoryCatalog({
      skills: [skill("a"), skill("b")],
      bundles: [bundle("pair", ["a", "ghost", "a"], { description: "Two of them" })],
    }),
  });
  const list = await registry.dispatch("/bundles", context);
  assert.ok(list?.kind === "reply");
  assert.ok(list.text.includes("/pair  Two of them (2 skills)"));
  assert.ok(list.text.includes("skills: a, ghost (missing)"));
  const help = await registry.dispatch("/help", context);
  assert.ok(help?.kind === "reply");
  assert.ok(help.text.includes("/bundles"));
  assert.ok(help.text.includes("/<name>"));
  assert.ok(help.text.includes("Bundles: /pair") && help.text.includes("Skills: /a, /b"));
  const none = await createSlashRegistry().dispatch("/bundles", context);
  assert.ok(none?.kind === "reply" && /not available/.test(none.text));
});

Deno.test("autocomplete marks bundles apart from skills and counts their skills", () => {
  const entries = completeSlash("/re", {
    commands: [{ name: "reset", description: "start over" }],
    skills: () => [skill("review"), skill("refactor")],
    bundles: () => [bundle("review", ["a", "b", "a"], { description: "Full review" })],
  });
  assert.deepEqual(entries, [
    { name: "refactor", description: "The refactor skill", kind: "skill", marker: "◆" },
    { name: "reset", description: "start over", kind: "command", marker: "›" },
    { name: "review", description: "Full review (2 skills)", kind: "bundle", marker: "▣" },
  ]);
  assert.notEqual(COMPLETION_MARKERS.bundle, COMPLETION_MARKERS.skill);
});

Deno.test("autocomplete has no bundles unless a bundle provider is given", () => {
  const entries = completeSlash("", { commands: [], skills: () => [skill("ab")] });
  assert.deepEqual(entries.map((e) => e.kind), ["skill"]);
  assert.deepEqual(
    completeSlash("my_", {
      commands: [],
      bundles: () => [bundle("my-bundle", ["x"])],
    }).map((e) => e.name),
    ["my-bundle"],
  );
  const registry = createSlashRegistry();
  assert.ok(registry.complete("/ex").some((e) => e.name === "exit" && e.kind === "command"));
});
