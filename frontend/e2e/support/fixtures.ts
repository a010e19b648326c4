/**
 * The specs' fixtures on top of Playwright's: the e2e stack's address (`base`), the seeded tests (`seed`), the
 * screenshot directory (`shots`), figures to report (`figure`) and a `page` that fails its test on any error in
 * the page (a page error or a console error) unless the spec allows it (`allowErrors`, set with test.use).
 */
import { test as playwrightTest } from "@playwright/test";
import { mkdirSync, readFileSync } from "node:fs";
import { BASE, SEED_FILE, SHOTS } from "./env";
import type { Seed } from "./seed";
import { viewportAt } from "./viewport";

export { BOTH, LAPTOP, PHONE, viewportAt } from "./viewport";

/** A 404 from an optional API (analysis, trend) is an answer the page handles, not an error of the page. */
export const EXPECTED_404 = /Failed to load resource: the server responded with a status of 404/;

/** Any of the patterns: for allowErrors. */
export function anyOf(...patterns: RegExp[]): RegExp {
  return new RegExp(patterns.map((p) => `(?:${p.source})`).join("|"));
}

interface Fixtures {
  /** The page's errors a spec expects (one pattern: Playwright reads an array option as [value, options]). */
  allowErrors: RegExp | null;
  base: string;
  shots: string;
  /** Records a measured figure: printed at the end of the run by support/figures-reporter.ts. */
  figure: (name: string, value: string | number) => void;
}

export const test = playwrightTest.extend<Fixtures, { seed: Seed }>({
  allowErrors: [null, { option: true }],
  // eslint-disable-next-line no-empty-pattern -- Playwright reads a fixture's dependencies from this pattern
  base: async ({}, use) => use(BASE),
  // eslint-disable-next-line no-empty-pattern
  shots: async ({}, use) => {
    mkdirSync(SHOTS, { recursive: true });
    await use(SHOTS);
  },
  seed: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => use(JSON.parse(readFileSync(SEED_FILE, "utf8")) as Seed),
    { scope: "worker" },
  ],
  // eslint-disable-next-line no-empty-pattern
  figure: async ({}, use, testInfo) =>
    use((name, value) => {
      testInfo.annotations.push({ type: "measured", description: `${name}: ${value}` });
    }),
  page: async ({ page, allowErrors, shots }, use, testInfo) => {
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(`console: ${m.text()}`);
    });
    await use(page);
    if (testInfo.status !== testInfo.expectedStatus) {
      const name = testInfo.title.replace(/\W+/g, "_");
      await page.screenshot({ path: `${shots}/FAILED-${name}.png`, fullPage: true }).catch(() => undefined);
      return;
    }
    const unexpected = errors.filter((e) => !allowErrors?.test(e));
    if (unexpected.length) throw new Error(`errors in the page:\n  ${unexpected.join("\n  ")}`);
  },
});

/** Declares the specs `define` makes once per width, each in a window of that width. */
export function atWidths(widths: readonly number[], define: (width: number) => void): void {
  for (const width of widths) {
    test.describe(() => {
      test.use({ viewport: viewportAt(width) });
      define(width);
    });
  }
}
