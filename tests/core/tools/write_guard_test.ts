import assert from "node:assert/strict";
import { isEnvFileName, judgeWrite, type WriteTarget } from "../../../core/tools/write_guard.ts";

const base: Omit<WriteTarget, "path"> = {
  cwd: "/work/app",
  userHome: "/home/me",
  heraldRoot: "/home/me/.herald",
};

function verdict(path: string, extra: Partial<WriteTarget> = {}) {
  return judgeWrite({ ...base, ...extra, path });
}

Deno.test("credential, secret and system files are refused, whatever the folder", () => {
  for (
    const path of [
      "/home/me/.ssh/id_rsa",
      "/home/me/.ssh/authorized_keys",
      "/home/me/.ssh/config",
      "/home/me/.gnupg/private-keys-v1.d/x.key",
      "/home/me/.aws/credentials",
      "/home/me/.config/gcloud/application_default_credentials.json",
      "/home/me/.kube/config",
      "/home/me/.docker/config.json",
      "/home/me/.netrc",
      "/home/me/.git-credentials",
      "/home/me/.npmrc",
      "/work/app/.env",
      "/work/app/.env.local",
      "/work/app/services/api/.env.production",
      "/work/app/.envrc",
      "/home/me/.herald/.env",
      "/home/me/.herald/state.db",
      "/home/me/.herald/config.yaml",
      "/home/me/.herald/profiles/other/.env",
      "/home/me/.herald/profiles/other/state.db-wal",
      "/home/me/.herald/profiles/other/sessions/x.jsonl",
      "/etc/passwd",
      "/etc/sudoers.d/herald",
      "/usr/local/bin/node",
      "/boot/grub/grub.cfg",
      "C:\\Windows\\System32\\drivers\\etc\\hosts",
    ]
  ) {
    const result = verdict(path);
    assert.equal(result.kind, "refuse", path);
    assert.equal(result.kind === "refuse" && result.code, "protected_path", path);
  }
});

Deno.test("a refusal says what the file is and that no approval will write it", () => {
  const result = verdict("/home/me/.ssh/id_rsa");
  assert.ok(result.kind === "refuse");
  assert.match(result.reason, /Write denied: "\/home\/me\/\.ssh\/id_rsa" is protected/);
  assert.match(result.reason, /credential folder/);
  assert.match(result.reason, /never write/);
});

Deno.test("project files, .env templates and Herald skills are written without asking", () => {
  for (
    const path of [
      "/work/app/src/main.ts",
      "/work/app/.env.example",
      "/work/app/.env.sample",
      "/work/app/environment.ts",
    ]
  ) {
    assert.deepEqual(verdict(path), { kind: "allow" }, path);
  }
  const inHome = { cwd: "/home/me/.herald" };
  assert.deepEqual(verdict("/home/me/.herald/skills/demo/SKILL.md", inHome), { kind: "allow" });
  assert.deepEqual(
    verdict("/home/me/.herald/profiles/w/skill-bundles/b.yaml", { cwd: "/home/me/.herald" }),
    { kind: "allow" },
  );
  assert.equal(verdict("/home/me/.herald/skills", inHome).kind, "refuse");
});

Deno.test("outside the working directory is asked, with a rule key for that folder only", () => {
  const result = verdict("/tmp/out/report.md");
  assert.deepEqual(result, {
    kind: "ask",
    reason: "write outside the working directory (/tmp/out)",
    ruleKey: "write_outside_workdir:/tmp/out",
  });
  const other = verdict("/home/me/notes.md");
  assert.ok(other.kind === "ask");
  assert.notEqual(other.ruleKey, result.ruleKey);
  // A sibling whose name starts like the working directory is outside it.
  assert.equal(verdict("/work/app-other/x.ts").kind, "ask");
});

Deno.test("a write root refuses everything outside it, before any question", () => {
  const root = { safeRoot: "/work/app/src" };
  assert.deepEqual(verdict("/work/app/src/a.ts", root), { kind: "allow" });
  const outside = verdict("/work/app/README.md", root);
  assert.ok(outside.kind === "refuse");
  assert.equal(outside.code, "outside_write_root");
  assert.match(outside.reason, /outside the write root \/work\/app\/src/);
  assert.equal(verdict("/tmp/x", root).kind, "refuse");
  // Protected files stay protected inside the root.
  assert.equal(verdict("/work/app/src/.env", root).kind, "refuse");
});

Deno.test("isEnvFileName knows secrets files from templates", () => {
  assert.ok(isEnvFileName(".env"));
  assert.ok(isEnvFileName(".env.staging"));
  assert.ok(isEnvFileName(".envrc"));
  assert.ok(!isEnvFileName(".env.example"));
  assert.ok(!isEnvFileName(".env.TEMPLATE"));
  assert.ok(!isEnvFileName("env"));
  assert.ok(!isEnvFileName(".environment"));
});
