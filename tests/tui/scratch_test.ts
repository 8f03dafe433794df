import { join } from "node:path";
import { tempDir } from "../_helpers.ts";
import { PtyScreen } from "./_pty.ts";
Deno.test("scratch", async () => {
  await using dir = await tempDir();
  const home = join(dir.path, "home");
  await using screen = PtyScreen.spawn({
    cwd: dir.path,
    env: { HERALD_HOME: home, HOME: home },
    args: [],
  });
  await new Promise((r) => setTimeout(r, 4000));
  console.log(screen.allText());
  await screen.type("hello");
  screen.press("enter");
  await new Promise((r) => setTimeout(r, 1500));
  console.log(screen.allText());
  console.log(
    await Promise.race([screen.exited, new Promise((r) => setTimeout(() => r("running"), 500))]),
  );
});
