/**
 * Browser specs of the regressions work: the compare page with three tests and the component's regression
 * dashboard, each checked against the JSON API and photographed at 1440 px and at 390 px (a phone).
 */
import assert from "node:assert/strict";

const EXPECTED_404 = /Failed to load resource: the server responded with a status of 404/;
const TOKEN = process.env.E2E_TOKEN ?? "";

async function call(base, method, path, body) {
  const res = await fetch(base + path, {
    method,
    headers: { Accept: "application/json", "Content-Type": "application/json", Authorization: `Token ${TOKEN}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
  return JSON.parse(text);
}

async function ready(base, path, timeoutMs = 120000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const body = await call(base, "GET", path);
    if (body?.status !== "pending") return body;
    if (Date.now() > deadline) throw new Error(`GET ${path}: still pending`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function phone(page) {
  await page.setViewportSize({ width: 390, height: 844 });
  // Give the charts (responsive) a moment to redraw at the new width.
  await page.waitForTimeout(500);
  // Wide tables scroll inside their cards: the page itself never gets wider than the phone.
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `the page is ${width} px wide at 390 px`);
}

export const regressionSpecs = [
  {
    name: "compare: three tests, differences in ms and %, verdicts coloured",
    allowErrors: [EXPECTED_404],
    async run({ page, base, seed, shots }) {
      const ids = [seed.a.id, seed.b.id, seed.stream.id];
      const answer = await ready(base, `/api/v1/compare?tests=${ids.join(",")}`);
      await page.goto(`${base}/compare/${ids.join("/")}`);
      await page.waitForSelector('table[data-table="compare-quantiles"] tr[data-level="99"]');
      const heads = await page.$$eval('table[data-table="compare-quantiles"] thead th', (th) =>
        th.map((t) => t.textContent),
      );
      assert.deepEqual(heads.slice(1), ids.map((i) => `#${i}`));
      const [q0, q1] = answer.quantiles_ms["99"];
      const pct = ((q1 - q0) / q0) * 100;
      const shown = await page.textContent('tr[data-level="99"] td:nth-child(3) .pct');
      assert.equal(shown.trim(), `${pct > 0 ? "+" : "−"}${Math.abs(pct).toFixed(1)} %`);
      const verdict = answer.verdict?.["99"]?.[1];
      if (verdict && verdict !== "same") {
        const cls = await page.getAttribute('tr[data-level="99"] td:nth-child(3)', "class");
        assert.match(cls, new RegExp(`cell-${verdict}`), "the cell takes its verdict's colour");
      }
      await page.waitForFunction(() => document.querySelectorAll('.chart[data-drawn="1"]').length >= 2, null, {
        timeout: 20000,
      });
      await page.screenshot({ path: `${shots}/compare-3-1440.png`, fullPage: true });
      await phone(page);
      await page.screenshot({ path: `${shots}/compare-3-390.png`, fullPage: true });
      // Six tests in the link: the page compares the first five and says so.
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.goto(`${base}/compare/${ids.join("/")}/999991/999992/999993`);
      await page.waitForSelector("text=This page compares up to 5 tests");
    },
  },
  {
    name: "component dashboard: KPIs with thresholds against the baseline, points past them, links to tests",
    allowErrors: [EXPECTED_404],
    async run({ page, base, seed, shots }) {
      const c = encodeURIComponent(seed.component);
      await call(base, "POST", `/api/v1/components/${c}/baseline`, { test: seed.a.id });
      await call(base, "PUT", `/api/v1/components/${c}/kpis`, {
        kpis: [
          { kpi: "q99", threshold: { kind: "relative", value: 10 } },
          { kpi: "q50", threshold: null },
          { kpi: "max_rps", threshold: { kind: "relative", value: 50 } },
          { kpi: "error_share", threshold: { kind: "absolute", value: 0.05 } },
        ],
      });
      const board = await call(base, "GET", `/api/v1/components/${c}/dashboard`);
      const q99 = board.kpis.find((k) => k.kpi === "q99");
      const candidate = q99.points.find((p) => p.test_id === seed.b.id);
      assert.equal(candidate.past_threshold, true, "the 3x slower candidate is past the baseline's q99 + 10 %");
      const check = await call(base, "GET", `/api/v1/components/${c}/check/${seed.b.id}`);
      assert.equal(check.pass, false);
      assert.match(check.reasons[0], /^q99: .* is above its threshold/);

      await page.goto(`${base}/component/${c}`);
      await page.waitForSelector('.kpi-card[data-kpi="q99"] .chart[data-drawn="1"]', { timeout: 20000 });
      assert.match(await page.textContent('section[aria-label="Baseline"]'), new RegExp(`#${seed.a.id}`));
      assert.match(await page.textContent('.kpi-card[data-kpi="q99"] .hint'), /fails above .* \(10 % over the baseline's/);
      const points = await page.evaluate(() => {
        const el = document.querySelector('.kpi-card[data-kpi="q99"] .chart');
        return el?.data?.[0]?.customdata ?? [];
      });
      assert.deepEqual(points, q99.points.filter((p) => p.value !== null).map((p) => p.test_id), "each point is a test");
      const pastCell = await page.$(`tr[data-test="${seed.b.id}"] td.past`);
      assert.ok(pastCell, "the candidate's q99 is marked in the tests table");
      const vs = await page.getAttribute(`tr[data-test="${seed.b.id}"] a:has-text("vs baseline")`, "href");
      assert.equal(vs, `/compare/${seed.a.id}/${seed.b.id}`);
      await page.screenshot({ path: `${shots}/component-dashboard-1440.png`, fullPage: true });
      await phone(page);
      await page.screenshot({ path: `${shots}/component-dashboard-390.png`, fullPage: true });
      // A click on a point opens its test's report.
      await page.setViewportSize({ width: 1440, height: 900 });
      await page.evaluate((id) => {
        const el = document.querySelector('.kpi-card[data-kpi="q99"] .chart');
        el.emit("plotly_click", { points: [{ customdata: id }] });
      }, seed.b.id);
      await page.waitForURL(`${base}/${seed.b.id}`);
    },
  },
];
