/**
 * Vite build of the SPA. Django serves dist/ through whitenoise under /static/, so every asset URL starts there;
 * the manifest lets backend/web find the hashed entry files without guessing names.
 */
import { defineConfig } from "vitest/config";

// jsdom 31 (the component tests) is written for Node 22+; see src/test/olderNode.mjs.
const NO_ITERATOR_HELPERS = typeof (globalThis as { Iterator?: unknown }).Iterator === "undefined";

export default defineConfig({
  base: "/static/",
  oxc: { jsx: { runtime: "automatic" } },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    manifest: true,
    // plotly alone is ~1.2 MB minified; it is split into its own chunk so the app code caches separately.
    chunkSizeWarningLimit: 1600,
    rollupOptions: {
      output: {
        manualChunks(id: string): string | undefined {
          return id.includes("plotly.js") ? "plotly" : undefined;
        },
      },
    },
  },
  test: {
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
    // Pure modules run in node; a component test opts in to jsdom with `// @vitest-environment jsdom`.
    environment: "node",
    // Each test gives the mocked API the answers it needs; none carries over from the test before.
    mockReset: true,
    // On a Node without them, jsdom's window realm gets the iterator helpers from V8's flag; olderNode.mjs fills in
    // the rest where it is missing (a no-op on Node 22.22+).
    execArgv: [
      ...(NO_ITERATOR_HELPERS ? ["--harmony-iterator-helpers"] : []),
      "--import",
      new URL("./src/test/olderNode.mjs", import.meta.url).href,
    ],
  },
});
