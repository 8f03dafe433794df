/**
 * A second process for the file-lock tests, using the real
 * adapters/home lock.
 *
 * `hold <file>`: takes the lock of `<file>`, prints `locked`, then obeys
 * lines on stdin while holding it: `append <text>` appends to `<file>`
 * (`\n` in the text is a newline; prints `appended`), `release` lets go and exits 0, `exit` ends the
 * process without releasing. If stdin closes, the lock is released.
 *
 * `increment <file> <n>`: adds 1 to the number in `<file>`, n times, each
 * as its own locked read-modify-write.
 *
 * @module
 */

import { withFileLock } from "../../../adapters/fs/file_lock.ts";
import { updateTextFile } from "../../../adapters/fs/text_file.ts";

const [mode, file, count] = Deno.args;
const encoder = new TextEncoder();
const say = (line: string) => Deno.stdout.writeSync(encoder.encode(`${line}\n`));

if (mode === "hold") {
  await withFileLock(file, async () => {
    say("locked");
    const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
    let buffered = "";
    for await (const chunk of lines) {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line === "release") return;
        if (line === "exit") Deno.exit(3);
        if (line.startsWith("append ")) {
          const text = line.slice("append ".length).replaceAll("\\n", "\n");
          await Deno.writeTextFile(file, text, { append: true });
          say("appended");
        }
      }
    }
  });
  say("released");
} else if (mode === "increment") {
  for (let i = 0; i < Number(count); i++) {
    await updateTextFile(file, (text) => String(Number(text || "0") + 1));
  }
} else {
  throw new TypeError(`unknown mode "${mode}"`);
}
