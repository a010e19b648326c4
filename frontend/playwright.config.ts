/**
 * Playwright's test runner for the browser specs (e2e/*.spec.ts), against the e2e stack deploy/e2e.sh starts:
 * Debian's Chromium (never a downloaded browser), seeded once by e2e/global-setup.ts.
 *   deploy/e2e.sh                      the whole run (stack, seeding, specs)
 *   npx playwright test -g "compare"   some specs again, against a stack left running (E2E_KEEP=1 deploy/e2e.sh)
 */
import { defineConfig } from "@playwright/test";
import { CHROMIUM_ARGS } from "./e2e/support/chromium.mjs";
import { LAPTOP, viewportAt } from "./e2e/support/viewport";

export default defineConfig({
  testDir: "e2e",
  globalSetup: "./e2e/global-setup.ts",
  // One worker, files in name order (01-…07-): the specs share one seeded stack and some build on what an earlier
  // one left (the component's baseline and KPIs, the users they make).
  workers: 1,
  fullyParallel: false,
  retries: 0,
  forbidOnly: true,
  // The webhook spec waits up to 90 s for a message; the slowest others take ~15 s.
  timeout: 180_000,
  reporter: [["list"], ["./e2e/support/figures-reporter.ts"]],
  outputDir: "../var/e2e/test-results",
  use: {
    viewport: viewportAt(LAPTOP),
    timezoneId: "UTC",
    acceptDownloads: true,
    // playwright-core's own defaults, which the specs were written against.
    actionTimeout: 30_000,
    navigationTimeout: 30_000,
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
      args: [...CHROMIUM_ARGS],
    },
  },
});
