/** Helpers the specs share for what they wait for and read in a page. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { Page } from "@playwright/test";
import type { Summary } from "./api";
import type { PlotlyElement, PlotlyTrace, PlotlyLayout } from "./plotly";

/** A figure in ms as the pages show it: three decimals, a dash for none. */
export const ms3 = (v: number | null | undefined): string => (v === null || v === undefined ? "—" : Number(v).toFixed(3));

/** Waits until `atLeast` charts are drawn; the page's clock then (ms since navigation). */
export async function drawnCharts(page: Page, atLeast: number, timeout = 15000): Promise<number> {
  await page.waitForFunction((n) => document.querySelectorAll('.chart[data-drawn="1"]').length >= n, atLeast, {
    timeout,
    polling: "raf",
  });
  return page.evaluate(() => performance.now());
}

/** Plotly's figure as drawn: the element keeps `data` and `layout`. */
export async function drawnFigure(page: Page, chartName: string): Promise<{ data: PlotlyTrace[]; layout: PlotlyLayout }> {
  const figure = await page.evaluate((name) => {
    const el = document.querySelector<PlotlyElement>(`.chart[data-chart="${name}"]`);
    return el ? { data: el.data.map((t) => ({ name: t.name, line: t.line, fillcolor: t.fillcolor, x: t.x?.slice(0, 2) })), layout: el.layout } : null;
  }, chartName);
  assert.ok(figure, `the chart ${chartName} is drawn`);
  return figure;
}

/** The number of points of each trace of a chart. */
export async function tracePoints(page: Page, chartName: string): Promise<number[]> {
  return page.evaluate((name) => {
    const el = document.querySelector<PlotlyElement>(`.chart[data-chart="${name}"]`);
    const data = el && "data" in el ? el.data : [];
    return (data ?? []).map((t) => (Array.isArray(t.y) ? t.y.length : Array.isArray(t.values) ? t.values.length : 0));
  }, chartName);
}

/** The header's chips show `summary`'s responses and q99, under a caption that names what they cover. */
export async function chipsShow(page: Page, summary: Summary, covers: string): Promise<void> {
  await page.waitForFunction(
    ([count, q99, covers]) => {
      const chips = document.querySelector(".chips");
      const value = (label: string): string | null | undefined => chips?.querySelector(`[data-chip="${label}"] .chip-value`)?.textContent;
      return (
        chips?.getAttribute("aria-busy") === "false" &&
        (chips.querySelector(".chips-covers")?.getAttribute("data-covers") ?? "").includes(covers) &&
        value("responses")?.replace(/\D/g, "") === count &&
        value("q99, ms") === q99
      );
    },
    [String(summary.count), ms3(summary.quantiles_ms["99"]), covers] as const,
  );
}

/** The page never scrolls sideways: wide tables scroll inside their cards. */
export async function assertNoSidewaysScroll(page: Page, what: string): Promise<void> {
  const { scroll, width } = await page.evaluate(() => ({
    scroll: document.documentElement.scrollWidth,
    width: window.innerWidth,
  }));
  assert.ok(scroll <= width + 1, `${what}: the page is ${scroll} px wide in a ${width} px window`);
}

/** A file the page offers for download after `click`: its suggested name and content. */
export async function download(page: Page, click: () => Promise<void>): Promise<{ name: string; text: string; bytes: Buffer }> {
  const [file] = await Promise.all([page.waitForEvent("download"), click()]);
  const path = await file.path();
  return { name: file.suggestedFilename(), text: readFileSync(path, "utf8"), bytes: readFileSync(path) };
}

/** Logs the browser in through the login page, and waits until it has left it. */
export async function logIn(page: Page, base: string, username: string, password: string, next: string): Promise<void> {
  await page.goto(`${base}/login?next=${encodeURIComponent(next)}`);
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await Promise.all([
    page.waitForURL((u) => !u.pathname.startsWith("/login")),
    page.getByRole("button", { name: "Log in" }).click(),
  ]);
}

/** A screenshot's path: `name` at `width`. */
export const shot = (shots: string, name: string, width: number): string => `${shots}/${name}-${width}.png`;
