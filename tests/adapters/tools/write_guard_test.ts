import assert from "node:assert/strict";
import { join } from "node:path";
import { createFileTools } from "../../../adapters/tools/files/mod.ts";
import { ToolError } from "../../../core/tools/types.ts";
import { tempDir } from "../../_helpers.ts";
import { toolContext } from "./_context.ts";

/** A user home with credentials, a Herald home in it, and a project. */
async function machine(root: string) {
  const home = join(root, "home");
  const herald = join(home, ".herald");
  const project = join(root, "project");
  const files: Record<string, string> = {
    [join(home, ".ssh/id_rsa")]: "PRIVATE KEY\n",
    [join(home, ".aws/credentials")]: "[default]\naws_secret_access_key=x\n",
    [join(home, ".netrc")]: "machine example.com password x\n",
    [join(herald, ".env")]: "OPENAI_API_KEY=sk-live\n",
    [join(herald, "config.yaml")]: "model:\n  provider: openai\n",
    [join(herald, "state.db")]: "SQLite format 3\0",
    [join(herald, "profiles/work/.env")]: "TELEGRAM_BOT_TOKEN=1:x\n",
    [join(project, ".env")]: "DATABASE_URL=postgres://u:p@h/db\n",
    [join(project, "src/main.ts")]: "export const a = 1;\n",
  };
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(join(path, ".."), { recursive: true });
    await Deno.writeTextFile(path, text);
  }
  return { home, herald, project, files };
}

async function refusal(run: () => Promise<unknown>): Promise<ToolError> {
  const error = await run().then(() => undefined, (e) => e);
  assert.ok(error instanceof ToolError, `expected a refusal, got ${error}`);
  return error;
}

Deno.test("write_file and patch leave every protected file byte-identical, even when approved", async () => {
  await using dir = await tempDir();
  const m = await machine(dir.path);
  const tools = createFileTools({ homeDir: m.home });
  // approve: true: a refusal must not depend on the user's answer.
  const ctx = toolContext({ cwd: m.project, home: m.herald, approve: true });
  for (const path of Object.keys(m.files).filter((p) => !p.endsWith("main.ts"))) {
    const write = await refusal(() => tools.writeFile.run({ path, content: "owned" }, ctx));
    assert.equal(write.code, "protected_path", path);
    const first = m.files[path].split("\n")[0];
    const patch = await refusal(() =>
      tools.patch.run({ path, old_string: first, new_string: "owned" }, ctx)
    );
    assert.equal(patch.code, "protected_path", path);
    assert.equal(await Deno.readTextFile(path), m.files[path], path);
  }
  assert.equal(ctx.approvals.length, 0, "a protected file is never asked about");
  // The ~ form is caught too.
  const tilde = await refusal(() =>
    tools.writeFile.run({ path: "~/.ssh/authorized_keys", content: "ssh-ed25519 AAAA" }, ctx)
  );
  assert.match(tilde.message, /credential folder/);
  await assert.rejects(Deno.stat(join(m.home, ".ssh/authorized_keys")), Deno.errors.NotFound);
});

Deno.test("a link inside the project that points at a credential is judged by its target", async () => {
  await using dir = await tempDir();
  const m = await machine(dir.path);
  await Deno.symlink(join(m.home, ".ssh"), join(m.project, "keys"));
  await Deno.symlink(join(m.home, ".aws/credentials"), join(m.project, "creds.ini"));
  const tools = createFileTools({ homeDir: m.home });
  const ctx = toolContext({ cwd: m.project, home: m.herald, approve: true });
  for (const path of ["keys/id_rsa", "keys/authorized_keys", "creds.ini"]) {
    const error = await refusal(() => tools.writeFile.run({ path, content: "x" }, ctx));
    assert.equal(error.code, "protected_path", path);
  }
  assert.equal(await Deno.readTextFile(join(m.home, ".ssh/id_rsa")), "PRIVATE KEY\n");
  assert.equal(
    await Deno.readTextFile(join(m.home, ".aws/credentials")),
    m.files[join(m.home, ".aws/credentials")],
  );
});

Deno.test("a write outside the working directory asks, and a denial leaves nothing", async () => {
  await using dir = await tempDir();
  const m = await machine(dir.path);
  const tools = createFileTools({ homeDir: m.home });
  const outside = join(dir.path, "elsewhere/out.txt");
  const denied = toolContext({ cwd: m.project, home: m.herald });
  const error = await refusal(() => tools.writeFile.run({ path: outside, content: "x" }, denied));
  assert.equal(error.code, "denied");
  assert.equal(denied.approvals.length, 1);
  assert.equal(denied.approvals[0].ruleKey, `write_outside_workdir:${join(dir.path, "elsewhere")}`);
  assert.match(denied.approvals[0].reason, /outside the working directory/);
  await assert.rejects(Deno.stat(outside), Deno.errors.NotFound);

  const approved = toolContext({ cwd: m.project, home: m.herald, approve: true });
  await tools.writeFile.run({ path: outside, content: "x" }, approved);
  assert.equal(await Deno.readTextFile(outside), "x");
  // Inside the project: no question.
  await tools.writeFile.run({ path: "src/new.ts", content: "export {};\n" }, approved);
  assert.equal(approved.approvals.length, 1);
});

Deno.test("a write root refuses writes outside it without asking", async () => {
  await using dir = await tempDir();
  const m = await machine(dir.path);
  const tools = createFileTools({ homeDir: m.home, writeSafeRoot: join(m.project, "src") });
  const ctx = toolContext({ cwd: m.project, home: m.herald, approve: true });
  await tools.patch.run({ path: "src/main.ts", old_string: "1", new_string: "2" }, ctx);
  assert.equal(await Deno.readTextFile(join(m.project, "src/main.ts")), "export const a = 2;\n");
  const error = await refusal(() => tools.writeFile.run({ path: "README.md", content: "x" }, ctx));
  assert.equal(error.code, "outside_write_root");
  assert.match(error.message, /HERALD_WRITE_SAFE_ROOT/);
  await assert.rejects(Deno.stat(join(m.project, "README.md")), Deno.errors.NotFound);
  assert.equal(ctx.approvals.length, 0);
});
