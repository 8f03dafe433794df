/**
 * `herald profile describe --auto` end to end: the real program as a
 * subprocess, the profile_describer auxiliary model served by the scripted
 * model server over HTTP.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import { createProfile } from "../../adapters/home/mod.ts";
import { startModelServer } from "../fakes/model_server.ts";
import { tempDir } from "../_helpers.ts";
import { configureModel, runHerald } from "./_herald.ts";

interface ChatBody {
  model: string;
  messages: { role: string; content: string }[];
}

async function writeSkill(home: string, dir: string, name: string, description: string) {
  await Deno.mkdir(join(home, "skills", dir), { recursive: true });
  await Deno.writeTextFile(
    join(home, "skills", dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: ${description}\n---\n# ${name}\n`,
  );
}

Deno.test("describe --auto keeps a user-authored description unless --overwrite, and tells the model the skills", async () => {
  await using root = await tempDir();
  await using server = await startModelServer({
    replies: [{ text: "Reviews pull requests and fixes failing builds. Knows git well. Extra." }],
  });
  const coder = await createProfile(root.path, "coder", {
    description: "My own words.",
    bundledSkills: false,
  });
  await configureModel(coder.home, server.openaiBaseUrl);
  await writeSkill(coder.home, "dev/git", "git", "Work with git repositories.");
  await writeSkill(coder.home, "ci", "ci-doctor", "Diagnose failing CI builds.");
  const profileYaml = join(coder.home, "profile.yaml");
  const before = await Deno.readTextFile(profileYaml);

  const kept = await runHerald({
    args: ["profile", "describe", "coder", "--auto"],
    home: root.path,
  });
  assert.equal(kept.code, 0, kept.stderr);
  assert.match(kept.stdout, /Kept the user-authored description of "coder": My own words\./);
  assert.match(kept.stdout, /--auto --overwrite/);
  assert.equal(await Deno.readTextFile(profileYaml), before);
  assert.equal(server.requests.length, 0);

  const replaced = await runHerald({
    args: ["-p", "coder", "profile", "describe", "--auto", "--overwrite", "--json"],
    home: root.path,
  });
  assert.equal(replaced.code, 0, replaced.stderr);
  const expected = {
    profile: "coder",
    status: "generated",
    description: "Reviews pull requests and fixes failing builds. Knows git well.",
    description_auto: true,
  };
  assert.deepEqual(JSON.parse(replaced.stdout), expected);
  const shown = await runHerald({
    args: ["profile", "describe", "coder", "--json"],
    home: root.path,
  });
  assert.deepEqual(JSON.parse(shown.stdout), { ...expected, status: "shown" });

  assert.equal(server.requests.length, 1);
  const body = server.requests[0].body as ChatBody;
  assert.equal(body.model, "test-model");
  const user = body.messages.find((m) => m.role === "user")!.content;
  assert.match(user, /Profile name: coder/);
  assert.match(user, /- ci-doctor: Diagnose failing CI builds\./);
  assert.match(user, /- git: Work with git repositories\./);
  assert.match(user, /Model: test-model/);
});

Deno.test("describe --auto on a profile without a description stores the describer slot's sentences", async () => {
  await using root = await tempDir();
  await using server = await startModelServer({
    replies: [{ text: "  Drafts blog posts and newsletters.  " }],
  });
  const writer = await createProfile(root.path, "writer", { bundledSkills: false });
  await configureModel(
    writer.home,
    server.openaiBaseUrl,
    "auxiliary:\n  profile_describer:\n    model: describer-model\n",
  );
  const result = await runHerald({
    args: ["profile", "describe", "writer", "--auto"],
    home: root.path,
  });
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /Drafts blog posts and newsletters\./);
  assert.equal((server.requests[0].body as ChatBody).model, "describer-model");
  assert.match(
    (server.requests[0].body as ChatBody).messages.at(-1)!.content,
    /Installed skills: none\./,
  );
  const text = await Deno.readTextFile(join(writer.home, "profile.yaml"));
  assert.match(text, /^description: Drafts blog posts and newsletters\.$/m);
  assert.match(text, /^description_auto: true$/m);
});
