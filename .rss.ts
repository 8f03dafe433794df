const mods = Deno.args;
for (const m of mods) await import(new URL(m, import.meta.url).href);
await new Promise((r) => setTimeout(r, 300));
console.log(mods.join(" "), (Deno.memoryUsage().rss / 1048576).toFixed(1), "MB");
