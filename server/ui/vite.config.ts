import { defineConfig } from "vite";
import preact from "@preact/preset-vite";

// The dashboard's web app. `deno task ui:build` builds it into dist/ and then
// writes server/ui_assets.gen.ts, the module the server embeds.
export default defineConfig({
  plugins: [preact()],
  base: "/",
  build: {
    outDir: "dist",
    emptyOutDir: true,
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
  },
});
