/**
 * Browser specs of daily use (issue #23), each run at 1440 px and at 390 px (a phone): managing a test from its
 * report (edit, tags, delete, stop), notes on the timeline, the sortable list with its figures, colours by
 * meaning, legends and units, exports (CSV, PNG/SVG, JSON), copy link, local time and UTC, failed uploads, the
 * SPA's 404, one navigation everywhere and a layout without sideways scrolling.
 */
import assert from "node:assert/strict";
import type { Page as BrowserPage } from "@playwright/test";
import { apiOk, request, type Page, type TestRow } from "./support/api";
import { djangoShell, TOKEN } from "./support/env";
import { anyOf, atWidths, BOTH, EXPECTED_404, test } from "./support/fixtures";
import { assertNoSidewaysScroll, download, drawnCharts, drawnFigure, logIn, shot } from "./support/page";
import type { PlotlyElement } from "./support/plotly";
import { EVIL_METRIC, LONG_COMPONENT } from "./support/seed";

// The seeded tests belong to the token's user; the browser logs in as that user to manage them.
const OWNER = "e2e";
const PASSWORD = "e2e-owner-Pa55word-not-secret";

let passwordSet = false;
/** Logs the browser in as the seeded tests' owner (a password is given to that token-only user once). */
async function login(page: BrowserPage, base: string, next = "/"): Promise<void> {
  if (!passwordSet) {
    djangoShell(
      `from django.contrib.auth.models import User; u = User.objects.get(username=${JSON.stringify(OWNER)}); u.set_password(${JSON.stringify(PASSWORD)}); u.save()`,
    );
    passwordSet = true;
  }
  await logIn(page, base, OWNER, PASSWORD, next);
}

/** Waits until `atLeast` charts are drawn. */
async function drawn(page: BrowserPage, atLeast = 1): Promise<void> {
  await drawnCharts(page, atLeast, 20000);
}

atWidths(BOTH, (width) =>
  test(`list: sortable, with q99, max RPS, imbalance, result, author, tags and no unnamed rows @${width}`, async ({ page, base, seed, shots }) => {
    await apiOk(base, `/api/v1/tests/${seed.b.id}/`, { method: "PATCH", body: { tags: ["candidate", "release"] }, token: true });
    await page.goto(`${base}/`);
    await page.waitForSelector("table.tests tbody tr");
    // Figures of a processed test are the API's.
    const a = await apiOk<TestRow>(base, `/api/v1/tests/${seed.a.id}/`);
    const row = page.locator(`tr[data-test="${seed.a.id}"]`);
    assert.equal(await row.locator('[data-col="q99"]').textContent(), Number(a.q99_ms).toFixed(3));
    assert.ok(a.max_rps > 0, "the API has the max RPS");
    assert.match((await row.locator('[data-col="max_rps"]').textContent()) ?? "", /^\d/);
    assert.equal(await row.locator("[data-result]").getAttribute("data-result"), a.result.kind);
    // The unnamed test: named by what it tested, its author the token's owner, no "(no name)" anywhere.
    const unnamed = page.locator(`tr[data-test="${seed.unnamed.id}"]`);
    assert.match((await unnamed.locator("td.name a").first().textContent()) ?? "", /payments-gateway/);
    assert.equal(await unnamed.locator("td.author").textContent(), OWNER);
    assert.ok(!((await page.textContent("table.tests")) ?? "").includes("(no name)"));
    // The long component is clipped in its column, and the page does not scroll sideways.
    const clipped = await unnamed.locator("td.component .clip").evaluate((el) => el.scrollWidth > el.clientWidth);
    assert.ok(clipped, `the component ${LONG_COMPONENT} is clipped, not widening the table`);
    await assertNoSidewaysScroll(page, "the list");
    // The refused upload shows its reason in the list.
    const refused = await apiOk<TestRow>(base, `/api/v1/tests/${seed.refused.id}/`);
    const result = page.locator(`tr[data-test="${seed.refused.id}"] [data-result]`);
    assert.equal(await result.getAttribute("data-result"), "failed");
    assert.equal(await result.getAttribute("title"), refused.result.text);
    assert.match(refused.result.text, /phout/, "the reason names what is wrong");
    await page.screenshot({ path: shot(shots, "list", width), fullPage: true });
    // Sorting by q99: highest first, as the API sorts it; the order is in the link.
    await page.locator('button[data-sort="q99"]').click();
    await page.waitForFunction(() => window.location.search.includes("ordering=-q99"));
    const sorted = await apiOk<Page<TestRow>>(base, "/api/v1/tests/?ordering=-q99&page_size=50");
    await page.waitForFunction(
      (ids) => [...document.querySelectorAll<HTMLElement>("table.tests tbody tr")].map((r) => Number(r.dataset.test)).join() === ids.join(),
      sorted.results.map((t) => t.id),
    );
    assert.equal(await page.getAttribute('th:has(button[data-sort="q99"])', "aria-sort"), "descending");
    // A tag filters the list.
    await page.locator(`tr[data-test="${seed.b.id}"] button.tag`, { hasText: "release" }).click();
    await page.waitForFunction(() => window.location.search.includes("tag=release"));
    await page.waitForFunction(
      (id) => [...document.querySelectorAll<HTMLElement>("table.tests tbody tr")].map((r) => Number(r.dataset.test)).join() === String(id),
      seed.b.id,
    );
  }),
);

test.describe(() => {
  test.use({ allowErrors: EXPECTED_404 });

  atWidths(BOTH, (width) =>
    test(`report: the owner edits name, component, version and tags, then deletes the test @${width}`, async ({ page, base, shots }) => {
      const made = await apiOk<TestRow>(base, "/api/v1/tests/", { method: "POST", body: { name: `to edit ${width}`, component: "e2e-scratch" }, token: true });
      // Anonymous readers see no management buttons.
      await page.goto(`${base}/${made.id}`);
      await page.waitForSelector(".report-header h1");
      assert.equal(await page.getByRole("button", { name: "Edit" }).count(), 0);
      await login(page, base, `/${made.id}`);
      await page.getByRole("button", { name: "Edit" }).click();
      const form = page.getByRole("form", { name: "Edit the test" });
      await form.getByLabel("Name").fill(`edited ${width}`);
      await form.getByLabel("Component").fill("e2e-edited");
      await form.getByLabel("Version").fill("9.9");
      await form.getByLabel(/Tags/).fill("nightly, e2e-tag");
      await form.getByLabel("Description").fill("changed from the report");
      await page.screenshot({ path: shot(shots, "report-edit", width), fullPage: true });
      await form.getByRole("button", { name: "Save" }).click();
      await page.waitForFunction((w) => document.querySelector(".report-header h1")?.textContent?.includes(`edited ${w}`), width);
      const saved = await apiOk<TestRow>(base, `/api/v1/tests/${made.id}/`);
      assert.deepEqual(
        [saved.name, saved.component, saved.version, saved.tags, saved.description],
        [`edited ${width}`, "e2e-edited", "9.9", ["e2e-tag", "nightly"], "changed from the report"],
      );
      assert.equal(await page.locator('.tags a[href="/?tag=nightly"]').count(), 1);
      await assertNoSidewaysScroll(page, "the report header");
      page.once("dialog", (d) => void d.accept());
      await page.getByRole("button", { name: "Delete" }).click();
      await page.waitForURL((u) => u.pathname === "/");
      assert.equal((await request(base, `/api/v1/tests/${made.id}/`)).status, 404);
    }),
  );

  atWidths(BOTH, (width) =>
    test(`report: notes mark a second on every time chart, as text @${width}`, async ({ page, base, seed, shots }) => {
      const t = seed.stream;
      await login(page, base, `/${t.id}`);
      await drawn(page, 3);
      const when = t.first_ts + 20;
      const text = `<a href="https://evil.example/">deploy ${width}</a>`;
      const notes = page.locator("details.notes");
      if (!(await notes.evaluate((el) => (el as HTMLDetailsElement).open))) await notes.locator("summary").click();
      await page.locator('input[name="note-time"]').fill(new Date(when * 1000).toISOString().slice(0, 19).replace("T", " "));
      await page.locator('input[name="note-text"]').fill(text);
      await page.getByRole("button", { name: "Add note" }).click();
      await page.waitForSelector(`.note-list li:has-text("deploy ${width}")`);
      const stored = (await apiOk<{ text: string; ts: number }[]>(base, `/api/v1/tests/${t.id}/notes`)).find((n) => n.text === text);
      assert.equal(stored?.ts, when, "the note marks the chosen second");
      // Every time chart of the overview shows it, as text: no link anywhere in the charts.
      for (const name of ["Response time quantiles and RPS", "HTTP codes", "Net codes"]) {
        await page.waitForFunction(
          ([chart, w]) => {
            const el = document.querySelector<PlotlyElement>(`.chart[data-chart="${chart}"]`);
            return (el?.layout?.annotations ?? []).some((a) => String(a.hovertext).includes(`deploy ${w}`));
          },
          [name, width] as const,
        );
        const annotation = await page.evaluate(
          ([chart, w]) =>
            document.querySelector<PlotlyElement>(`.chart[data-chart="${chart}"]`)?.layout.annotations?.find((a) => String(a.hovertext).includes(`deploy ${w}`))?.text ?? "",
          [name, width] as const,
        );
        assert.ok(annotation.startsWith("&lt;a href"), `escaped in ${name}: ${annotation}`);
      }
      assert.equal(await page.locator('.chart a[href*="evil.example"]').count(), 0, "no live link in a chart");
      await page.screenshot({ path: shot(shots, "report-notes", width), fullPage: true });
      // The monitoring metric named with HTML: its legend reads as text, and is no link either.
      await page.getByRole("tab", { name: "Monitoring" }).click();
      await drawn(page, 2);
      const legends = await page.$$eval(".chart .legendtext", (els) => els.map((e) => e.textContent ?? ""));
      assert.ok(legends.some((l) => l.includes('<a href="https://evil.example/">evil</a>')), `legends: ${legends.join(" | ")}`);
      assert.ok(EVIL_METRIC.includes("evil.example"));
      assert.equal(await page.locator('.chart a[href*="evil.example"]').count(), 0, "the metric name is no live link");
      // Memory in MiB/GiB, CPU in %, readable names.
      const axes = await page.$$eval(".chart", (els) => els.map((e) => [(e as PlotlyElement).dataset.chart ?? "", (e as PlotlyElement).layout.yaxis.title.text ?? ""]));
      const memory = axes.find(([n]) => n?.endsWith("memory"));
      assert.ok(memory && ["MiB", "GiB"].includes(memory[1] ?? ""), `memory axis: ${JSON.stringify(axes)}`);
      assert.ok(legends.includes("user (all CPUs)"), "telegraf's cpu name is readable");
      await page.screenshot({ path: shot(shots, "report-monitoring", width), fullPage: true });
      // Clean up: the note's author deletes it.
      await page.getByRole("tab", { name: "Overview" }).click();
      if (!(await notes.evaluate((el) => (el as HTMLDetailsElement).open))) await notes.locator("summary").click();
      await page.getByRole("button", { name: `Delete the note “${text}”` }).click();
      await page.waitForFunction((w) => !(document.body.textContent ?? "").includes(`deploy ${w}</a>`), width);
    }),
  );

  atWidths(BOTH, (width) =>
    test(`report: an online test has a Stop button for its owner that asks the server and shows stopping @${width}`, async ({ page, base, shots }) => {
      // A test of its own at each width (create.json, as the tank starts one): a stop is for good.
      const created = await fetch(`${base}/api/job/create.json?api_token=${encodeURIComponent(TOKEN)}`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ task: "LOAD-8", person: "tank", loadscheme: ["const(10,60s)"], notify: [] }),
      });
      assert.equal(created.status, 200, "create.json");
      const [first] = (await created.json()) as { job: number }[];
      assert.ok(first, "create.json names the job");
      const { job } = first;
      let posted: string | null = null;
      page.on("request", (request) => {
        if (request.url().endsWith(`/api/v1/tests/${job}/stop`)) posted = request.method();
      });
      await page.goto(`${base}/${job}`);
      await page.waitForSelector(".report-header h1");
      assert.equal(await page.getByRole("button", { name: "Stop the test" }).count(), 0, "no Stop for anonymous readers");
      await login(page, base, `/${job}`);
      const stop = page.getByRole("button", { name: "Stop the test" });
      await stop.waitFor();
      // An overload-mode tank (no status call): the page says what a stop will and will not do, before and after.
      const outcome = "the tank will keep shooting until its schedule ends; its data will not be recorded";
      assert.ok(((await page.textContent(".actions")) ?? "").includes(outcome), "said before the click");
      let asked = "";
      page.once("dialog", (d) => {
        asked = d.message();
        void d.accept();
      });
      await stop.click();
      await page.waitForSelector('button.stop[data-stop-state="stopping"]');
      assert.ok(asked.includes(outcome), `the confirmation says it: ${asked}`);
      assert.equal(posted, "POST");
      const after = await apiOk<TestRow>(base, `/api/v1/tests/${job}/`);
      assert.equal(after.stop_requested, true, "the server took the stop");
      assert.equal(after.stop_ends_shooting, false);
      assert.ok(((await page.textContent(".actions")) ?? "").includes(`stopped recording: ${outcome}`), "said after it");
      await page.screenshot({ path: shot(shots, "report-stopping", width) });
    }),
  );

  interface Tables {
    intervals: { from_ms: number; to_ms: number; count: number }[];
    http_codes: { code: number; count: number; share: number }[];
  }

  atWidths(BOTH, (width) =>
    test(`tables: response-time intervals, HTTP meanings, CSV of every table @${width}`, async ({ page, base, seed, shots }) => {
      const t = seed.b;
      const tables = await apiOk<Tables>(base, `/api/v1/tests/${t.id}/tables?q=50,75,80,85,90,95,98,99,99.5,99.9,100`);
      await page.goto(`${base}/${t.id}#tab=tables`);
      await page.waitForSelector('table[data-table="intervals"] tbody tr');
      const shown = await page.$$eval('table[data-table="intervals"] tbody tr', (rows) =>
        rows.map((r) => [(r as HTMLElement).dataset.interval, Number(r.querySelector<HTMLElement>("[data-count]")?.dataset.count)]),
      );
      assert.deepEqual(shown, tables.intervals.map((r) => [`${r.from_ms}-${r.to_ms}`, r.count]));
      const meaning = await page.textContent('table[data-table="http_codes"] tr[data-code="503"] td.meaning');
      assert.equal(meaning, "Service Unavailable");
      await assertNoSidewaysScroll(page, "the tables tab");
      await page.screenshot({ path: shot(shots, "report-tables-daily", width), fullPage: true });
      const csv = await download(page, () => page.getByRole("button", { name: "Download HTTP codes as CSV" }).click());
      assert.match(csv.name, /\.csv$/);
      const lines = csv.text.trim().split(/\r\n/);
      assert.equal(lines[0], "code,class,meaning,count,share");
      const ok = tables.http_codes.find((r) => r.code === 200);
      assert.ok(ok, "the API counts HTTP 200");
      // The CSV carries the API's figures unrounded (full precision), the page rounds them once on screen.
      assert.ok(lines.includes(`200,success,OK,${ok.count},${ok.share}`), lines.join(" | "));
      for (const label of ["Cumulative quantiles", "Response time intervals", "Net codes", "Per case"]) {
        const file = await download(page, () => page.getByRole("button", { name: new RegExp(`Download .*${label.split(" ")[0]}.* as CSV`, "i") }).first().click());
        assert.ok(file.text.split(/\r\n/).length > 2, `${label} CSV has rows`);
      }
    }),
  );

  atWidths(BOTH, (width) =>
    test(`charts: colours by meaning, a legend and units on every chart, PNG/SVG/JSON export, empty charts say why @${width}`, async ({ page, base, seed, shots }) => {
      const colours: Record<number, Record<string, string | undefined>> = {};
      for (const t of [seed.a, seed.b]) {
        await page.goto(`${base}/${t.id}`);
        await drawn(page, 3);
        const fig = await drawnFigure(page, "HTTP codes");
        colours[t.id] = Object.fromEntries(fig.data.map((d) => [d.name ?? "", d.line?.color]));
        for (const name of ["Response time quantiles and RPS", "HTTP codes", "Net codes"]) {
          const f = await drawnFigure(page, name);
          assert.equal(f.layout.showlegend, true, `${name} has a legend`);
          assert.ok(f.layout.yaxis.title.text && f.layout.xaxis.title.text, `${name} has units on its axes`);
        }
      }
      // 200 is green, 404 orange and 503 red on both tests, whatever other codes each had
      // (analytics/figures_colors.py: their fixed shades).
      for (const id of [seed.a.id, seed.b.id]) {
        assert.equal(colours[id]?.["200"], "#2ca02c");
        assert.equal(colours[id]?.["404"], "#ff7f0e");
        assert.equal(colours[id]?.["503"], "#a50f15");
      }
      assert.deepEqual(colours[seed.a.id], colours[seed.b.id]);
      const q = await drawnFigure(page, "Response time quantiles and RPS");
      assert.equal(q.layout.yaxis2?.title.text, "responses/s", "no 'instances' on the right axis of a phout upload");
      // Exports: Plotly's own image export, and the figure as JSON.
      const svg = await download(page, () => page.getByRole("button", { name: "Download HTTP codes as SVG" }).click());
      assert.match(svg.name, /\.svg$/);
      assert.match(svg.text, /<svg/);
      const png = await download(page, () => page.getByRole("button", { name: "Download HTTP codes as PNG" }).click());
      assert.match(png.name, /\.png$/);
      assert.equal(png.bytes.subarray(1, 4).toString(), "PNG");
      const json = await download(page, () => page.getByRole("button", { name: "Download HTTP codes as JSON" }).click());
      assert.ok(Array.isArray((JSON.parse(json.text) as { data?: unknown }).data));
      await page.screenshot({ path: shot(shots, "report-overview-daily", width), fullPage: true });
      for (const [i, name] of ["quantiles", "http-codes"].entries()) {
        await page.locator(".chart-box").nth(i).screenshot({ path: shot(shots, `chart-${name}`, width) });
      }
      // Extended: a phout upload has no instances, so that chart is replaced by a line saying so.
      await page.getByRole("tab", { name: "Extended analysis" }).click();
      const empty = page.locator('[data-empty-chart="Instances and RPS"]');
      await empty.waitFor();
      assert.match((await empty.textContent()) ?? "", /no instances/);
      await drawn(page, 3);
      await assertNoSidewaysScroll(page, "the extended tab");
      await page.screenshot({ path: shot(shots, "report-extended", width), fullPage: true });
    }),
  );

  test.describe(() => {
    test.use({ timezoneId: "Asia/Kolkata", permissions: ["clipboard-read", "clipboard-write"] });

    atWidths(BOTH, (width) =>
      test(`time: local by default, a UTC switch kept across pages, copy link @${width}`, async ({ page, base, seed, shots }) => {
        const t = seed.a;
        await page.goto(`${base}/${t.id}`);
        await drawn(page, 3);
        const start = (): Promise<string | null> => page.textContent('.field:has(dt:text("Start")) dd');
        const local = new Date((t.first_ts + 5.5 * 3600) * 1000).toISOString().slice(0, 19).replace("T", " ");
        assert.equal(await start(), local, "the start in India's time");
        assert.equal((await drawnFigure(page, "HTTP codes")).layout.xaxis.title.text, "time, local (UTC+5:30)");
        const firstX = (await drawnFigure(page, "HTTP codes")).data[0]?.x?.[0] ?? NaN;
        await page.getByRole("button", { name: /Times shown in local time/ }).click();
        const utc = new Date(t.first_ts * 1000).toISOString().slice(0, 19).replace("T", " ");
        await page.waitForFunction((v) => document.querySelector(".field dd")?.closest(".fields")?.textContent?.includes(v), utc);
        assert.equal(await start(), utc);
        await page.waitForFunction(() => document.querySelector<PlotlyElement>('.chart[data-chart="HTTP codes"]')?.layout?.xaxis?.title?.text === "time, UTC");
        const utcX = (await drawnFigure(page, "HTTP codes")).data[0]?.x?.[0] ?? NaN;
        assert.equal(firstX - utcX, 5.5 * 3600 * 1000, "the chart's points moved by the offset");
        await page.reload();
        await drawn(page, 3);
        assert.equal(await start(), utc, "the choice is kept");
        await page.screenshot({ path: shot(shots, "report-utc", width) });
        await page.getByRole("button", { name: "Copy link" }).click();
        await page.waitForSelector('.copied:text("Link copied")');
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), page.url());
      }),
    );
  });

  atWidths(BOTH, (width) =>
    test(`a refused upload says why on the report, never 'refreshes by itself' @${width}`, async ({ page, base, seed, shots }) => {
      type Upload = { error: string | null };
      const uploads = await apiOk<Upload[] | { results?: Upload[]; uploads?: Upload[] }>(base, `/api/v1/tests/${seed.refused.id}/uploads/`);
      const reason = (Array.isArray(uploads) ? uploads : (uploads.results ?? uploads.uploads ?? []))[0]?.error;
      assert.ok(reason, "the upload has a reason");
      await page.goto(`${base}/${seed.refused.id}`);
      await page.waitForSelector('[data-upload-failed="1"], .state.error');
      const text = (await page.textContent("main")) ?? "";
      assert.ok(text.includes(reason.slice(0, 40)), `the reason is shown: ${reason}`);
      assert.ok(!text.includes("refreshes by itself"));
      await page.screenshot({ path: shot(shots, "report-refused", width), fullPage: true });
    }),
  );
});

test.describe(() => {
  test.use({ allowErrors: anyOf(EXPECTED_404, /status of 404/) });

  atWidths(BOTH, (width) =>
    test(`navigation: one header everywhere, an SPA 404, offline API docs, no sideways scrolling @${width}`, async ({ page, base, seed, shots }) => {
      const external: string[] = [];
      page.on("request", (r) => {
        if (!r.url().startsWith(base)) external.push(r.url());
      });
      const response = await page.goto(`${base}/no/such/page`);
      assert.equal(response?.status(), 404);
      await page.waitForSelector('[data-page="not-found"]');
      await page.screenshot({ path: shot(shots, "not-found", width) });
      for (const path of ["/no/such/page", "/login", "/tokens", `/${seed.a.id}`, "/", "/api/docs/"]) {
        await page.goto(base + path);
        const nav = page.getByRole("navigation", { name: "Main" });
        await nav.waitFor();
        for (const link of ["Tests", "API tokens", "API docs"]) {
          assert.equal(await nav.getByRole("link", { name: link }).count(), 1, `${path}: ${link}`);
        }
        // The header is one or two short rows, never a tall wrapped block.
        const height = await page.$eval(".topbar", (el) => el.getBoundingClientRect().height);
        assert.ok(height < (width < 600 ? 80 : 50), `${path}: header ${height} px tall`);
        await assertNoSidewaysScroll(page, path);
        if (path === "/login") await page.screenshot({ path: shot(shots, "login", width) });
      }
      await page.goto(`${base}/${seed.a.id}`);
      const tabs = page.getByRole("tablist");
      const lastTab = page.getByRole("tab", { name: "Config" });
      await lastTab.scrollIntoViewIfNeeded();
      await lastTab.click();
      assert.equal(await lastTab.getAttribute("aria-selected"), "true");
      assert.ok(await tabs.isVisible());
      await page.goto(`${base}/api/docs/`);
      await page.waitForSelector(".swagger-ui .opblock", { timeout: 20000 });
      assert.deepEqual(external, [], "the docs load nothing from outside");
      await page.screenshot({ path: shot(shots, "api-docs", width) });
    }),
  );
});
