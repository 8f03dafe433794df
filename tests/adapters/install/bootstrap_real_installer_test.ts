/**
 * The desktop resolver running the real installers/install.sh (a copy, so
 * edits to the checkout do not matter mid-run) against a release served on
 * 127.0.0.1 whose SHA256SUMS does not match: the "repository" stage fails,
 * and the failure is reported, latched on disk and thrown again without
 * running the installer. Run as the `installer` option, and as the copy of
 * the embedded install.sh a compiled binary (no checkout) runs.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DesktopResolver, installerCopyPath } from "../../../adapters/install/bootstrap.ts";
import type { BootstrapEvent } from "../../../core/desktop/bootstrap.ts";
import { HeraldError } from "../../../core/errors.ts";

const INSTALLERS = new URL("../../../installers/", import.meta.url).pathname;

const IGNORE = Deno.build.os !== "linux" ||
  !(await Deno.stat(join(INSTALLERS, "install.sh")).then(() => true, () => false));

/**
 * Runs the real install.sh (a copy) against a release with wrong checksums;
 * `embedded`: as the embedded script (no `installer` option, no checkout),
 * else as the `installer` option.
 */
async function failingRelease(embedded: boolean): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "herald-desktop-real-" });
  const files: Record<string, string> = {
    "herald-linux-x86_64": "#!/bin/sh\necho 'herald 0.0.1 (0123456789ab)'\n",
    "herald-linux-aarch64": "#!/bin/sh\necho 'herald 0.0.1 (0123456789ab)'\n",
    "install-stamp.json": '{"commit":"0123456789abcdef","branch":"main"}\n',
  };
  const wrong = "0".repeat(64);
  files.SHA256SUMS = Object.keys(files).map((name) => `${wrong}  ${name}\n`).join("");
  const requested: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const name = new URL(req.url).pathname.slice(1);
    requested.push(name);
    return name in files ? new Response(files[name]) : new Response("no", { status: 404 });
  });
  try {
    const copy = join(dir, "installers");
    await Deno.mkdir(copy);
    for await (const entry of Deno.readDir(INSTALLERS)) {
      if (entry.isFile) await Deno.copyFile(join(INSTALLERS, entry.name), join(copy, entry.name));
    }
    const install = join(dir, "install");
    const env = {
      HOME: join(dir, "home"),
      HERALD_HOME: join(dir, "herald-home"),
      HERALD_INSTALL_DIR: install,
      HERALD_BIN_DIR: join(dir, "bin"),
      PATH: "/usr/local/bin:/usr/bin:/bin",
    };
    const events: BootstrapEvent[] = [];
    const options = {
      env,
      checkout: null,
      ...(embedded
        ? { embeddedInstaller: join(copy, "install.sh") }
        : { installer: ["bash", join(copy, "install.sh")] }),
      installerArgs: ["--release-url", `http://127.0.0.1:${server.addr.port}`],
      packagePaths: [],
      onEvent: (e: BootstrapEvent) => events.push(e),
    };
    const resolver = new DesktopResolver(options);
    const error = await resolver.resolve().then(() => undefined, (e) => e);
    assert.ok(error instanceof HeraldError, String(error));
    assert.equal(error.code, "desktop_bootstrap_failed");
    assert.match(error.message, /stage "repository".*checksum mismatch/);
    const failed = events.at(-1)!;
    assert.ok(failed.type === "stage" && failed.state === "failed", JSON.stringify(failed));
    assert.equal(failed.stage, "repository");
    assert.ok(
      events.some((e) => e.type === "stage" && e.stage === "prerequisites" && e.state === "done"),
    );
    assert.ok(requested.includes("SHA256SUMS"));
    if (embedded) {
      // The embedded script was copied out beside the install folder, executable, and run.
      const placed = installerCopyPath(install);
      assert.equal(placed, join(dir, ".herald-install.sh"));
      assert.equal(
        await Deno.readTextFile(placed),
        await Deno.readTextFile(join(copy, "install.sh")),
      );
      assert.equal((await Deno.stat(placed)).mode! & 0o777, 0o755);
    }
    const latch = JSON.parse(await Deno.readTextFile(join(install, ".herald-bootstrap-failed")));
    assert.equal(latch.stage, "repository");

    // A restarted desktop takes the latch from disk and runs nothing.
    const before = requested.length;
    events.length = 0;
    const again = await new DesktopResolver(options).resolve().then(() => undefined, (e) => e);
    assert.equal(again?.message, error.message);
    assert.deepEqual(events, []);
    assert.equal(requested.length, before);
    assert.equal(
      await Deno.stat(join(install, "bin", "herald")).then(() => true, () => false),
      false,
    );
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test({
  name:
    "the real install.sh with a release whose checksums do not match fails its stage and latches",
  ignore: IGNORE,
  fn: () => failingRelease(false),
});

Deno.test({
  name: "with no checkout and no installer given, the embedded install.sh is copied out and run",
  ignore: IGNORE,
  fn: () => failingRelease(true),
});
