/**
 * Chromium's flags for every browser the e2e tools start: playwright.config.ts (the specs) and live.watch.mjs (run
 * by plain node from the Python suite, hence JavaScript; chromium.d.mts types it for the config). The field
 * notes' flags: without the background-networking ones Chromium's connections to the closed network pile up.
 */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];
