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
    environment: "node",
  },
});
