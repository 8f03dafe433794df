const root = Deno.args[0];
async function once(): Promise<number> {
  const home = await Deno.makeTempDir();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", `${root}/cli/main.ts`, "dashboard", "--no-open", "--port", "0"],
    cwd: root, env: { HERALD_HOME: home }, stdout: "piped", stderr: "inherit", stdin: "null",
  }).spawn();
  const reader = child.stdout.getReader(); await reader.read(); reader.releaseLock();
  await new Promise((r) => setTimeout(r, 3000));
  const status = await Deno.readTextFile(`/proc/${child.pid}/status`);
  child.kill("SIGTERM"); await child.status; await child.stdout.cancel().catch(() => {});
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}
const xs = []; for (let i = 0; i < 4; i++) xs.push(await once());
console.log(root, xs.map((x) => x.toFixed(1)).join(" "));
