/**
 * The browser tests: playwright-core driving Debian's Chromium (never a downloaded browser) against the running
 * e2e stack that deploy/e2e.sh started and seeded. Each spec opens a page by URL, checks what it shows against
 * the JSON API, and saves a screenshot. Prints the measured figures (chart draw time, gzipped JS) at the end.
 *
 *   E2E_BASE_URL=http://127.0.0.1:8765 E2E_SEED=var/e2e/seed.json E2E_SCREENSHOTS=var/screenshots node e2e/run.mjs
 */
import { readFileSync, mkdirSync } from "node:fs";
import { chromium } from "playwright-core";
import { specs } from "./specs.mjs";
import { dailySpecs } from "./daily.mjs";
import { tokenSpecs } from "./tokens.load.mjs";
import { regressionSpecs } from "./regressions.specs.mjs";
import { ssoSpecs } from "./sso.specs.mjs";
import { projectSpecs } from "./projects.specs.mjs";
import { bundleSizes } from "./measure.mjs";

const BASE = process.env.E2E_BASE_URL ?? "http://127.0.0.1:8765";
const SEED = JSON.parse(readFileSync(process.env.E2E_SEED ?? "../var/e2e/seed.json", "utf8"));
const SHOTS = process.env.E2E_SCREENSHOTS ?? "../var/screenshots";
const ONLY = process.env.E2E_ONLY ?? "";
mkdirSync(SHOTS, { recursive: true });

// The field notes' flags: without the background-networking ones Chromium's connections to the closed network
// pile up; a fresh profile per run keeps runs independent.
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
  ],
});

const figures = {};
let passed = 0;
let failed = 0;
try {
  // A spec runs at each width it names (default: a laptop screen, 1440 px); a phone is 390 × 844.
  const runs = [...specs, ...tokenSpecs, ...dailySpecs, ...regressionSpecs, ...ssoSpecs, ...projectSpecs].flatMap((spec) =>
    (spec.widths ?? [1440]).map((width) => ({ spec, width, name: spec.widths ? `${spec.name} @${width}` : spec.name })),
  );
  for (const { spec, width, name } of runs) {
    if (ONLY && !name.includes(ONLY)) continue;
    if (spec.skip?.(SEED)) {
      console.log(`  skip ${name}`);
      continue;
    }
    const context = await browser.newContext({
      viewport: { width, height: width < 600 ? 844 : 900 },
      timezoneId: "UTC",
      acceptDownloads: true,
      ...(spec.context ?? {}),
    });
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(`console: ${m.text()}`);
    });
    const started = Date.now();
    try {
      await spec.run({ page, context, width, base: BASE, seed: SEED, shots: SHOTS, figures, errors });
      const unexpected = errors.filter((e) => !spec.allowErrors?.some((re) => re.test(e)));
      if (unexpected.length) throw new Error(`errors in the page:\n  ${unexpected.join("\n  ")}`);
      passed += 1;
      console.log(`  ok   ${name} (${Date.now() - started} ms)`);
    } catch (e) {
      failed += 1;
      await page.screenshot({ path: `${SHOTS}/FAILED-${name.replace(/\W+/g, "_")}.png`, fullPage: true }).catch(() => {});
      console.log(`  FAIL ${name}: ${e instanceof Error ? e.message : e}`);
    } finally {
      await context.close();
    }
  }
} finally {
  await browser.close();
}

const sizes = bundleSizes(new URL("../dist/", import.meta.url));
figures.js_gzip_bytes = sizes.gzipTotal;
console.log("measured:");
console.log(`  gzipped JavaScript: ${(sizes.gzipTotal / 1024).toFixed(1)} KiB in ${sizes.files} files (limit 1536 KiB)`);
for (const [k, v] of Object.entries(figures)) if (k !== "js_gzip_bytes") console.log(`  ${k}: ${v}`);
if (sizes.gzipTotal > 1.5 * 1024 * 1024) {
  failed += 1;
  console.log("  FAIL the gzipped JavaScript is over 1.5 MB");
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
