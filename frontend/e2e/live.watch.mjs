/**
 * Watches an online test's report page in headless Chromium and notes when each second reaches the page through
 * its live channel (every event the page's EventSource gets, with its kind and Date.now()), and which second the
 * header's live figures show. Driven by backend/live/tests/test_live_browser.py, which runs the real tank, forces a
 * reconnect in the middle and compares these times with the tank's pushes.
 *
 *   node e2e/live.watch.mjs BASE_URL TEST_ID OUT.json STOP_FILE [SCREENSHOT_PREFIX]
 *
 * Runs until STOP_FILE exists; writes {events: [{id, kind, ts, at_ms}], opens, shown: [{ts, at_ms}], errors} to OUT.json.
 */
import { existsSync, writeFileSync } from "node:fs";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS } from "./support/chromium.mjs";

const [base, testId, out, stopFile, shots] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  args: CHROMIUM_ARGS,
});
const errors = [];
const pages = [];
try {
  for (const width of shots ? [1440, 390] : [1440]) {
    const page = await browser.newPage({ viewport: { width, height: width > 800 ? 1000 : 844 } });
    page.on("pageerror", (e) => errors.push(String(e)));
    // Every event the page's EventSource receives, timed in the page as it is dispatched.
    await page.addInitScript(() => {
      window.__liveEvents = [];
      window.__liveOpens = 0;
      // Each second the header's live figures show, noted in the page as the DOM changes: a poll from here would miss
      // a value shown for less than its period (the last second, just before the closed test's figures replace it).
      window.__liveShown = [];
      new MutationObserver(() => {
        const ts = document.querySelector(".report-header .live-figures")?.getAttribute("data-live-ts");
        const last = window.__liveShown[window.__liveShown.length - 1];
        if (ts != null && (last === undefined || last.ts !== Number(ts))) {
          window.__liveShown.push({ ts: Number(ts), at_ms: Date.now() });
        }
      }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ["data-live-ts"] });
      const Native = window.EventSource;
      window.EventSource = class extends Native {
        constructor(...args) {
          super(...args);
          this.addEventListener("open", () => (window.__liveOpens += 1));
          for (const kind of ["second", "stored", "status"]) {
            this.addEventListener(kind, (e) => {
              const data = JSON.parse(e.data);
              window.__liveEvents.push({ id: Number(e.lastEventId), kind, ts: data.last_ts, at_ms: Date.now() });
            });
          }
        }
      };
    });
    await page.goto(`${base}/${testId}`);
    pages.push({ page, width });
    if (shots) {
      // The list, whose online row follows the same channel.
      const list = await browser.newPage({ viewport: { width, height: width > 800 ? 700 : 844 } });
      list.on("pageerror", (e) => errors.push(String(e)));
      await list.goto(`${base}/`);
      pages.push({ page: list, width, name: "list" });
    }
  }
  const main = pages[0].page;
  let shot = !shots;
  while (!existsSync(stopFile)) {
    if (!shot && (await main.evaluate(() => window.__liveShown.length).catch(() => 0)) >= 8) {
      shot = true;
      for (const { page, width, name } of pages) {
        await page.screenshot({ path: `${shots}${name ? `-${name}` : ""}-${width}.png`, fullPage: !name });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const shown = await main.evaluate(() => window.__liveShown);
  const events = await main.evaluate(() => window.__liveEvents);
  const opens = await main.evaluate(() => window.__liveOpens);
  writeFileSync(out, JSON.stringify({ events, opens, shown, errors }));
} finally {
  await browser.close();
}
