/**
 * Browser specs of the regressions work: the compare page with three tests and the component's regression
 * dashboard, each checked against the JSON API and photographed at 1440 px and at 390 px (a phone).
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "@playwright/test";
import { apiOk, apiReady, type Compare } from "./support/api";
import { djangoShell, TOKEN } from "./support/env";
import { EXPECTED_404, LAPTOP, PHONE, test, viewportAt } from "./support/fixtures";
import type { PlotlyElement } from "./support/plotly";

test.use({ allowErrors: EXPECTED_404 });

/** The regressions API, as the seeding user (a maintainer of the component's project). */
function call<T>(base: string, method: string, path: string, body?: unknown): Promise<T> {
  return apiOk<T>(base, path, { method, body, token: true });
}

async function phone(page: Page): Promise<void> {
  await page.setViewportSize(viewportAt(PHONE));
  // Give the charts (responsive) a moment to redraw at the new width.
  await page.waitForTimeout(500);
  // Wide tables scroll inside their cards: the page itself never gets wider than the phone.
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  if (width > PHONE) {
    // Name the elements that stick out (outside any scrolling box), to say what to fix.
    const offenders = await page.evaluate(() =>
      [...document.querySelectorAll("body *")]
        .filter((el) => el.getBoundingClientRect().right > 391 && !el.closest(".scroll-x"))
        .slice(-6)
        .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join(".")} (${Math.round(el.getBoundingClientRect().right)} px)`),
    );
    assert.fail(`the page is ${width} px wide at ${PHONE} px: ${offenders.join(", ")}`);
  }
}

const MANAGER = "e2e-release-manager";
const PASSWORD = "e2e-release-Pa55word-not-secret";

/** A staff user with a password, made in the e2e stack's database (issue_token users have none). */
function ensureManager(): void {
  djangoShell(
    [
      "from django.contrib.auth.models import User",
      `u, _ = User.objects.get_or_create(username=${JSON.stringify(MANAGER)})`,
      `u.set_password(${JSON.stringify(PASSWORD)})`,
      "u.is_staff = True",
      "u.save()",
    ].join("; "),
  );
}

interface Received {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A webhook receiver on 127.0.0.1: resolves with the first request (its headers and raw body). */
function receiver(): Promise<{ url: string; first: Promise<Received>; server: Server }> {
  let resolve: (got: Received) => void = () => undefined;
  const first = new Promise<Received>((r) => (resolve = r));
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
      resolve({ headers: req.headers, body: Buffer.concat(chunks) });
    });
  });
  return new Promise((ready) =>
    server.listen(0, "127.0.0.1", () => ready({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, first, server })),
  );
}

/** A test of the component whose every response takes 2 s: far past any threshold set on the seeded runs. */
async function uploadSlowTest(base: string, component: string): Promise<number> {
  const test = await call<{ id: number }>(base, "POST", "/api/v1/tests/", { name: "slow release", component, version: "2.0" });
  const t0 = Math.floor(Date.now() / 1000) - 120;
  let text = "";
  for (let s = 0; s < 60; s++) for (let i = 0; i < 20; i++) {
    text += `${t0 + s}.${String(i * 50).padStart(3, "0")}\tindex\t2000001\t0\t0\t0\t0\t0\t0\t0\t0\t200\n`;
  }
  const res = await fetch(`${base}/api/v1/tests/${test.id}/phout`, {
    method: "PUT",
    headers: { Authorization: `Token ${TOKEN}`, "Content-Type": "application/octet-stream" },
    body: text,
  });
  if (res.status !== 202) throw new Error(`phout upload: ${res.status} ${await res.text()}`);
  return test.id;
}

interface KpiPoint {
  test_id: number;
  value: number | null;
  past_threshold: boolean;
}

interface Dashboard {
  kpis: { kpi: string; points: KpiPoint[] }[];
}

test("compare: three tests, differences in ms and %, verdicts coloured", async ({ page, base, seed, shots }) => {
  const ids = [seed.a.id, seed.b.id, seed.stream.id];
  const answer = await apiReady<Compare>(base, `/api/v1/compare?tests=${ids.join(",")}`, { token: true });
  await page.goto(`${base}/compare/${ids.join("/")}`);
  await page.waitForSelector('table[data-table="compare-quantiles"] tr[data-level="99"]');
  const heads = await page.$$eval('table[data-table="compare-quantiles"] thead th', (th) => th.map((t) => t.textContent));
  assert.deepEqual(heads.slice(1), ids.map((i) => `#${i}`));
  const [q0 = NaN, q1 = NaN] = answer.quantiles_ms["99"] ?? [];
  const pct = (((q1 ?? NaN) - (q0 ?? NaN)) / (q0 ?? NaN)) * 100;
  const shown = (await page.textContent('tr[data-level="99"] td:nth-child(3) .pct')) ?? "";
  assert.equal(shown.trim(), `${pct > 0 ? "+" : "−"}${Math.abs(pct).toFixed(1)} %`);
  const verdict = answer.verdict?.["99"]?.[1];
  if (verdict && verdict !== "same") {
    const cls = (await page.getAttribute('tr[data-level="99"] td:nth-child(3)', "class")) ?? "";
    assert.match(cls, new RegExp(`cell-${verdict}`), "the cell takes its verdict's colour");
  }
  await page.waitForFunction(() => document.querySelectorAll('.chart[data-drawn="1"]').length >= 2, null, {
    timeout: 20000,
  });
  await page.screenshot({ path: `${shots}/compare-3-${LAPTOP}.png`, fullPage: true });
  await phone(page);
  await page.screenshot({ path: `${shots}/compare-3-${PHONE}.png`, fullPage: true });
  // Six tests in the link: the page compares the first five and says so.
  await page.setViewportSize(viewportAt(LAPTOP));
  await page.goto(`${base}/compare/${ids.join("/")}/999991/999992/999993`);
  await page.waitForSelector("text=This page compares up to 5 tests");
});

test("component dashboard: KPIs with thresholds against the baseline, points past them, links to tests", async ({ page, base, seed, shots }) => {
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
  const board = await call<Dashboard>(base, "GET", `/api/v1/components/${c}/dashboard`);
  const q99 = board.kpis.find((k) => k.kpi === "q99");
  assert.ok(q99, "the dashboard has q99");
  const candidate = q99.points.find((p) => p.test_id === seed.b.id);
  assert.equal(candidate?.past_threshold, true, "the 3x slower candidate is past the baseline's q99 + 10 %");
  const check = await call<{ pass: boolean; reasons: string[] }>(base, "GET", `/api/v1/components/${c}/check/${seed.b.id}`);
  assert.equal(check.pass, false);
  assert.match(check.reasons[0] ?? "", /^q99: .* is above its threshold/);

  await page.goto(`${base}/component/${c}`);
  await page.waitForSelector('.kpi-card[data-kpi="q99"] .chart[data-drawn="1"]', { timeout: 20000 });
  assert.match((await page.textContent('section[aria-label="Baseline"]')) ?? "", new RegExp(`#${seed.a.id}`));
  assert.match((await page.textContent('.kpi-card[data-kpi="q99"] .hint')) ?? "", /fails above .* \(10 % over the baseline's/);
  const points = await page.evaluate(() => {
    const el = document.querySelector<PlotlyElement>('.kpi-card[data-kpi="q99"] .chart');
    return el?.data?.[0]?.customdata ?? [];
  });
  assert.deepEqual(points, q99.points.filter((p) => p.value !== null).map((p) => p.test_id), "each point is a test");
  const pastCell = await page.$(`tr[data-test="${seed.b.id}"] td.past`);
  assert.ok(pastCell, "the candidate's q99 is marked in the tests table");
  const vs = await page.getAttribute(`tr[data-test="${seed.b.id}"] a:has-text("vs baseline")`, "href");
  assert.equal(vs, `/compare/${seed.a.id}/${seed.b.id}`);
  await page.screenshot({ path: `${shots}/component-dashboard-${LAPTOP}.png`, fullPage: true });
  await phone(page);
  await page.screenshot({ path: `${shots}/component-dashboard-${PHONE}.png`, fullPage: true });
  // A click on a point opens its test's report.
  await page.setViewportSize(viewportAt(LAPTOP));
  await page.evaluate((id) => {
    const el = document.querySelector<PlotlyElement>('.kpi-card[data-kpi="q99"] .chart');
    el?.emit("plotly_click", { points: [{ customdata: id }] });
  }, seed.b.id);
  await page.waitForURL(`${base}/${seed.b.id}`);
});

test("component dashboard, logged in: edit a threshold, subscribe a webhook, a regressed upload reaches it", async ({ page, base, seed, shots }) => {
  ensureManager();
  const c = encodeURIComponent(seed.component);
  await page.goto(`${base}/login?next=/component/${c}`);
  await page.getByLabel("Username").fill(MANAGER);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.waitForURL(`${base}/component/${c}`);
  await page.waitForSelector('form[aria-label="KPIs and thresholds"]');

  // The KPI editor: q99's threshold from 10 % to 20 % over the baseline, saved for the component.
  await page.getByLabel("Threshold value of q99").fill("20");
  await page.getByRole("button", { name: "Save KPIs" }).click();
  await page.waitForSelector("text=Saved.");
  const kpis = await call<{ kpis: unknown[] }>(base, "GET", `/api/v1/components/${c}/kpis`);
  assert.deepEqual(kpis.kpis[0], { kpi: "q99", threshold: { kind: "relative", value: 20 } });
  await page.waitForSelector('.kpi-card[data-kpi="q99"] .hint >> text=/20 % over the baseline/');

  // Subscribe a new signed webhook (a receiver on 127.0.0.1) to the component's regressions.
  const rx = await receiver();
  try {
    await page.getByLabel("Kind").selectOption("webhook");
    await page.getByLabel("Target name").fill("release channel");
    await page.getByLabel("Webhook URL").fill(rx.url);
    await page.getByRole("button", { name: "Subscribe" }).click();
    const secret = (await page.getByTestId("webhook-secret").textContent()) ?? "";
    await page.waitForSelector(".subscriptions >> text=release channel");
    await page.screenshot({ path: `${shots}/component-manager-${LAPTOP}.png`, fullPage: true });

    const slow = await uploadSlowTest(base, seed.component);
    const got = await Promise.race([
      rx.first,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no message within 90 s")), 90000)),
    ]);
    const message = JSON.parse(got.body.toString()) as { event: string; test_id: number; url: string; lines: string[] };
    assert.equal(message.event, "regression_found");
    assert.equal(message.test_id, slow);
    assert.equal(message.url, `${base}/${slow}`);
    assert.match(message.lines[0] ?? "", /^q99: .* is above its threshold/);
    const signature = createHmac("sha256", secret).update(got.body).digest("hex");
    assert.equal(got.headers["x-tankodrom-signature"], `sha256=${signature}`);
  } finally {
    rx.server.close();
  }
  // The delivery log on the page says it was sent.
  await page.reload();
  await page.waitForSelector('table[data-table="deliveries"] >> text=regression found');
  const row = (await page.textContent('table[data-table="deliveries"] tbody tr')) ?? "";
  assert.match(row, /sent/);
  await page.waitForSelector('.kpi-card[data-kpi="q99"] .chart[data-drawn="1"]', { timeout: 20000 });
  await page.screenshot({ path: `${shots}/component-manager-after-${LAPTOP}.png`, fullPage: true });
  await phone(page);
  await page.screenshot({ path: `${shots}/component-manager-${PHONE}.png`, fullPage: true });
});
