/**
 * The `herald` launcher (adapters/install/launcher.ts) and `deno task
 * install|uninstall` (scripts/install.ts): the script's text, writing it
 * atomically with mode 0755, never touching a file Herald did not write,
 * the PATH advice, and the real launcher running this checkout from
 * another folder.
 */

import assert from "node:assert/strict";
import { join } from "node:path";
import {
  installLauncher,
  launcherDir,
  onPath,
  parseLauncherMarker,
  pathAdvice,
  readLauncher,
  renderLauncher,
  shellQuote,
} from "../../adapters/install/launcher.ts";
import { HeraldError } from "../../core/errors.ts";
import {
  install,
  type InstallContext,
  parseInstallArgs,
  uninstall,
} from "../../scripts/install.ts";
import { REPO_ROOT, tempDir } from "../_helpers.ts";

function context(
  env: Record<string, string | undefined>,
  cwd = "/",
): InstallContext & { printed: string } {
  const c = {
    env,
    cwd,
    printed: "",
    out: (text: string) => void (c.printed += text),
    deno: Deno.execPath(),
    denoVersion: Deno.version.deno,
    checkout: REPO_ROOT,
  };
  return c;
}

async function sh(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const output = await new Deno.Command(args[0], {
    args: args.slice(1),
    cwd: options.cwd,
    env: options.env,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code: output.code, stdout: decode(output.stdout), stderr: decode(output.stderr) };
}

function mode(path: string): number {
  return Deno.statSync(path).mode! & 0o777;
}

Deno.test("the launcher is a POSIX sh script with a marker, absolute paths and quoted values", async () => {
  const text = renderLauncher({
    kind: "herald",
    deno: "/opt/my deno/deno",
    checkout: "/src/it's herald",
    denoVersion: "2.9.6",
  });
  assert.match(text, /^#!\/bin\/sh\n# herald-launcher: herald\n/);
  assert.match(text, /^deno='\/opt\/my deno\/deno'$/m);
  assert.match(text, /^checkout='\/src\/it'\\''s herald'$/m);
  assert.match(
    text,
    /^exec "\$deno" run --allow-all --config "\$checkout\/deno.json" "\$checkout\/cli\/main.ts" "\$@"$/m,
  );
  assert.match(text, /npx -y deno@2\.9\.6 task install/);
  assert.deepEqual(parseLauncherMarker(text), { kind: "herald" });
  const profile = renderLauncher({ kind: "profile", profile: "work", herald: "/b/herald" });
  assert.deepEqual(parseLauncherMarker(profile), { kind: "profile", profile: "work" });
  assert.match(profile, /^exec "\$herald" -p 'work' "\$@"$/m);
  assert.equal(parseLauncherMarker("#!/bin/sh\nexec something\n"), undefined);
  assert.equal(shellQuote("a'b"), `'a'\\''b'`);

  await using dir = await tempDir();
  for (const [name, script] of [["herald", text], ["work", profile]]) {
    await Deno.writeTextFile(join(dir.path, name), script);
    const check = await sh(["sh", "-n", join(dir.path, name)]);
    assert.equal(check.code, 0, check.stderr);
  }
});

Deno.test("the launcher says what to do when its Deno is gone", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "herald");
  await installLauncher(path, { kind: "herald", deno: join(dir.path, "gone"), checkout: "/x" });
  const result = await sh([path, "--version"]);
  assert.equal(result.code, 127);
  assert.match(
    result.stderr,
    /^herald: Deno is no longer at .*gone; run `npx -y deno task install` in \/x again\n$/,
  );
});

Deno.test("install writes an executable launcher and replaces only its own", async () => {
  await using dir = await tempDir();
  const bin = join(dir.path, "new", "bin");
  const first = context({ HOME: dir.path, PATH: "/usr/bin:/bin", SHELL: "/bin/bash" });
  await install(parseInstallArgs(["--dir", bin]), first);
  const path = join(bin, "herald");
  assert.equal(mode(path), 0o755);
  assert.deepEqual(await readLauncher(path), { state: "ours", kind: "herald" });
  const text = await Deno.readTextFile(path);
  assert.ok(text.includes(`deno=${shellQuote(Deno.execPath())}`));
  assert.ok(text.includes(`checkout=${shellQuote(REPO_ROOT)}`));
  assert.match(first.printed, new RegExp(`^Wrote ${path}: runs Herald from `));
  assert.match(
    first.printed,
    /is not on your PATH\. Add this line to ~\/\.bashrc, then open a new terminal:\n/,
  );
  assert.match(first.printed, /^ {2}export PATH="\$HOME\/new\/bin:\$PATH"$/m);
  assert.equal((await Array.fromAsync(Deno.readDir(bin))).length, 1, "no temporary file is left");

  const again = context({ HOME: dir.path, PATH: `/usr/bin:${bin}` });
  await install(parseInstallArgs([`--dir=${bin}`]), again);
  assert.match(again.printed, /^Replaced /);
  assert.doesNotMatch(again.printed, /not on your PATH/);
  assert.equal(mode(path), 0o755);
});

Deno.test("install refuses a file, a folder or a link it did not write, and leaves it", async () => {
  await using dir = await tempDir();
  const foreign = "#!/bin/sh\necho mine\n";
  const file = join(dir.path, "a");
  await Deno.mkdir(file);
  await Deno.writeTextFile(join(file, "herald"), foreign);
  const folder = join(dir.path, "b");
  await Deno.mkdir(join(folder, "herald"), { recursive: true });
  const link = join(dir.path, "c");
  await Deno.mkdir(link);
  await Deno.symlink(join(file, "herald"), join(link, "herald"));
  for (
    const [bin, what] of [[file, "a file Herald did not write"], [folder, "a folder"], [
      link,
      "a symbolic link",
    ]]
  ) {
    const c = context({ HOME: dir.path });
    await assert.rejects(
      () => install({ uninstall: false, help: false, dir: bin }, c),
      (error: HeraldError) => {
        assert.equal(error.code, "launcher_path_taken");
        assert.equal(error.kind, "conflict");
        assert.match(
          error.message,
          new RegExp(`^${join(bin, "herald")} is ${what}, not a launcher`),
        );
        return true;
      },
    );
    assert.equal(c.printed, "");
  }
  assert.equal(await Deno.readTextFile(join(file, "herald")), foreign);
  await assert.rejects(() => uninstall({ uninstall: true, help: false, dir: file }, context({})));
  assert.equal(await Deno.readTextFile(join(file, "herald")), foreign);
});

Deno.test("uninstall removes the launcher and the profile launchers beside it, nothing else", async () => {
  await using dir = await tempDir();
  const bin = join(dir.path, "bin");
  await install({ uninstall: false, help: false, dir: bin }, context({ HOME: dir.path }));
  await installLauncher(join(bin, "work"), {
    kind: "profile",
    profile: "work",
    herald: join(bin, "herald"),
  });
  await Deno.writeTextFile(join(bin, "other"), "#!/bin/sh\n");
  const c = context({ HOME: dir.path });
  await uninstall({ uninstall: true, help: false, dir: bin }, c);
  assert.equal(
    c.printed,
    `Removed ${join(bin, "work")} (profile "work")\nRemoved ${join(bin, "herald")}\n`,
  );
  assert.deepEqual((await Array.fromAsync(Deno.readDir(bin))).map((e) => e.name), ["other"]);
  const nothing = context({ HOME: dir.path });
  await uninstall({ uninstall: true, help: false, dir: bin }, nothing);
  assert.match(nothing.printed, /^Nothing to remove: there is no herald launcher at /);
});

Deno.test("the folder is --dir, else HERALD_BIN_DIR, else ~/.local/bin; relative to the caller", () => {
  assert.equal(launcherDir({ HOME: "/h" }), "/h/.local/bin");
  assert.equal(launcherDir({ HOME: "/h", HERALD_BIN_DIR: "/opt/bin" }), "/opt/bin");
  assert.equal(launcherDir({ HOME: "/h", HERALD_BIN_DIR: "/opt/bin" }, "b", "/w"), "/w/b");
  assert.throws(() => launcherDir({}), /HOME is not set/);
  assert.deepEqual(parseInstallArgs(["--uninstall"]), { uninstall: true, help: false });
  assert.throws(() => parseInstallArgs(["--dir"]), /--dir needs a folder/);
  assert.throws(() => parseInstallArgs(["--frob"]), /Unknown argument "--frob"/);
});

Deno.test("the PATH line suits the user's shell", () => {
  const home = "/home/ann";
  const dir = "/home/ann/.local/bin";
  const line = 'export PATH="$HOME/.local/bin:$PATH"';
  assert.deepEqual(pathAdvice({ HOME: home, SHELL: "/bin/zsh" }, dir), { file: "~/.zshrc", line });
  assert.deepEqual(pathAdvice({ HOME: home, SHELL: "/bin/bash" }, dir, "linux"), {
    file: "~/.bashrc",
    line,
  });
  assert.deepEqual(pathAdvice({ HOME: home, SHELL: "/bin/bash" }, dir, "darwin"), {
    file: "~/.bash_profile",
    line,
  });
  assert.deepEqual(pathAdvice({ HOME: home, SHELL: "/usr/bin/fish" }, dir), {
    file: "~/.config/fish/config.fish",
    line: "fish_add_path $HOME/.local/bin",
  });
  assert.deepEqual(pathAdvice({ HOME: home }, "/opt/bin"), {
    file: "~/.profile",
    line: 'export PATH="/opt/bin:$PATH"',
  });
  assert.equal(onPath({ PATH: "/usr/bin:/opt/bin/" }, "/opt/bin"), true);
  assert.equal(onPath({ PATH: "/usr/bin" }, "/opt/bin"), false);
});

Deno.test("a Deno or checkout path with a line break is refused, and comments never carry one", async () => {
  for (
    const target of [
      { kind: "herald" as const, deno: "/opt/deno", checkout: "/src/x\nrm -rf ~ #" },
      { kind: "herald" as const, deno: "/opt/de\rno", checkout: "/src/herald" },
      { kind: "herald" as const, deno: "/opt/deno", checkout: "/src/tab\there" },
      { kind: "profile" as const, profile: "work", herald: "/b/her\nald" },
    ]
  ) {
    assert.throws(
      () => renderLauncher(target),
      (error: unknown) =>
        error instanceof HeraldError && error.code === "launcher_path_invalid" &&
        error.kind === "usage" && /holds a control character/.test(error.message),
      JSON.stringify(target),
    );
  }
  await using dir = await tempDir();
  const path = join(dir.path, "bin", "herald");
  await assert.rejects(
    () => installLauncher(path, { kind: "herald", deno: "/opt/deno", checkout: "/a\nb" }),
    /checkout path "\/a\\nb" holds a control character/,
  );
  await assert.rejects(Deno.stat(join(dir.path, "bin")), Deno.errors.NotFound, "nothing written");
  // Every line that starts with # stays one comment; the script has no other line from a path.
  const text = renderLauncher({ kind: "herald", deno: "/opt/deno", checkout: "/src/a # b" });
  assert.match(text, /^# Runs Herald from \/src\/a # b in the folder you are in\.$/m);
});

/**
 * Runs `line` in `shell` with `HOME` and a short PATH, and returns PATH's
 * folders after it. fish runs with its own start-up files (they turn
 * `fish_user_paths` into PATH) and a fresh config folder each time.
 */
async function pathAfter(shell: string, line: string, home: string): Promise<string[]> {
  const print = shell === "fish"
    ? "string join \\n -- $PATH"
    : 'printf "%s\\n" "$PATH" | tr : "\\n"';
  const args = shell === "fish"
    ? ["fish", "-c", `${line}; ${print}`]
    : [shell, "-c", `${line}\n${print}`];
  const config = await Deno.makeTempDir({ dir: home, prefix: ".config-" });
  const result = await sh(args, {
    env: { HOME: home, PATH: "/usr/bin:/bin", XDG_CONFIG_HOME: config },
  });
  assert.equal(result.code, 0, `${shell}: ${line}: ${result.stderr}`);
  return result.stdout.split("\n").filter((entry) => entry !== "");
}

function installed(shell: string): boolean {
  try {
    return new Deno.Command(shell, { args: ["-c", "exit 0"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

Deno.test("the PATH line, run in the real shell, puts the exact folder on the PATH", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  const folders = [
    join(home, ".local", "bin"),
    join(home, "my tools", "bin"),
    join(home, `it's "$HOME" \`x\` we!rd\\`, "bin"),
    join(dir.path, "outside $PATH", "bin"),
    join(dir.path, "plain", "bin"),
  ];
  for (const folder of folders) await Deno.mkdir(folder, { recursive: true });
  const shells = ["bash", "sh", "zsh", "fish"].filter(installed);
  assert.ok(shells.includes("bash"), "bash is always there");
  for (const shell of shells) {
    for (const folder of folders) {
      const { line } = pathAdvice({ HOME: home, SHELL: `/bin/${shell}` }, folder, "linux");
      const path = await pathAfter(shell, line, home);
      assert.equal(path[0], folder, `${shell}: ${line} gave ${path.join(":")}`);
      assert.ok(path.includes("/usr/bin"), `${shell}: ${line} kept the PATH`);
    }
  }
  const { line } = pathAdvice(
    { HOME: home, SHELL: "/usr/bin/fish" },
    join(home, "my tools", "bin"),
  );
  assert.equal(line, 'fish_add_path "$HOME/my tools/bin"');
  assert.equal(
    pathAdvice({ HOME: home, SHELL: "/bin/bash" }, join(dir.path, "a $b")).line,
    `export PATH='${dir.path}/a $b'":$PATH"`,
  );
});

Deno.test("the installed launcher runs this checkout from another folder, ignoring its deno.json", async () => {
  await using dir = await tempDir();
  const bin = join(dir.path, "bin");
  const work = join(dir.path, "work project");
  await Deno.mkdir(work);
  // A project of the user's own with an import map that would break Herald's imports.
  await Deno.writeTextFile(
    join(work, "deno.json"),
    JSON.stringify({ imports: { commander: "npm:commander@0.0.1" }, nodeModulesDir: "auto" }),
  );
  await install({ uninstall: false, help: false, dir: bin }, context({ HOME: dir.path }));
  const env = { ...Deno.env.toObject(), HERALD_HOME: join(dir.path, "home"), NO_COLOR: "1" };
  const version = await sh([join(bin, "herald"), "-v"], { cwd: work, env });
  assert.equal(version.code, 0, version.stderr);
  assert.match(version.stdout, /^herald \d+\.\d+\.\d+ /);
  // --help loads the npm packages of the checkout (commander).
  const help = await sh([join(bin, "herald"), "help", "profile"], { cwd: work, env });
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^Usage: herald profile /);
  const made = await Array.fromAsync(Deno.readDir(work));
  assert.deepEqual(
    made.map((e) => e.name),
    ["deno.json"],
    "nothing is written in the user's folder",
  );
});
