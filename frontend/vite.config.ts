/**
 * Vite build of the SPA. Django serves dist/ through whitenoise under /static/, so every asset URL starts there;
 * the manifest lets backend/web find the hashed entry files without guessing names.
 */
import { defineConfig } from "vitest/config";


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
  },
});
