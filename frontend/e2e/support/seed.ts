/**
 * Seeds REAL data into a running Tankodrom through its public APIs, for the browser tests:
 *   - two tests of one component made from generated phout files (PUT /api/v1/tests/<id>/phout), the second
 *     slower, so the compare page has a difference to show;
 *   - one test streamed as yandex-tank streams it (POST /api/job/create.json, push_data.json, monitoring push,
 *     close.json), so the Monitoring tab and the histogram path have data.
 * Run once before the specs by global-setup.ts, which writes what was made to E2E_SEED (JSON) for the specs.
 * Scale: E2E_DURATION_S (seconds per test), E2E_RPS, E2E_PERF_LINES (a big test for the performance figures).
 */
import { createReadStream, createWriteStream, rmSync, statSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { gzipSync } from "node:zlib";
import { BASE, TOKEN } from "./env";

const DURATION_S = Number(process.env.E2E_DURATION_S ?? "240");
const RPS = Number(process.env.E2E_RPS ?? "150");
export const COMPONENT = "e2e-billing-api";
// An unnamed test of a component with a long name: the list must name it sensibly and keep its columns on screen.
export const LONG_COMPONENT = "payments-gateway-settlement-reconciliation-batch-processor-eu-west-1-canary";
export const EVIL_METRIC = 'custom:<a href="https://evil.example/">evil</a>';
// Lines of the big test for the performance figures (the figure is for 10M); 0 = no big test.
const PERF_LINES = Number(process.env.E2E_PERF_LINES ?? "0");

/** A processed test's time span (epoch seconds), as the API reports it. */
export interface Span {
  id: number;
  first_ts: number;
  last_ts: number;
}

/** A test the tank still streams: what a spec needs to push more seconds into it. */
export interface OnlineTest {
  id: number;
  upload_token: string;
  start: number;
  last_ts: number;
}

/** What the seeding made, as written to E2E_SEED and read by the specs' `seed` fixture. */
export interface Seed {
  base: string;
  component: string;
  a: Span & { lines: number };
  b: Span & { lines: number; bad_lines: number };
  stream: Span & { status: string };
  online: OnlineTest;
  waiting: { id: number };
  unnamed: Span;
  refused: { id: number };
  seed_s: number;
  perf?: Span & { lines: number };
}

interface TestMeta {
  id: number;
  status: string;
  error?: string;
  first_ts: number | null;
  last_ts: number;
}

/** A small deterministic PRNG (mulberry32): the same seed gives the same file, so failures reproduce. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Case {
  tag: string;
  share: number;
  base_ms: number;
}

const LOGIN: Case = { tag: "login", share: 0.2, base_ms: 12 };
const SEARCH: Case = { tag: "search", share: 0.5, base_ms: 35 };
const CHECKOUT: Case = { tag: "checkout", share: 0.3, base_ms: 80 };

/**
 * A phout (yandex-tank's 12 tab-separated columns) of a line(rps/4 → rps) ramp then a const stage, one second
 * per yielded chunk. Response times are log-normal around each case's base and grow with load after 60 % of
 * the ramp (`slowdown`), with a few HTTP 5xx, 404s and timeouts (net code 110), as a real shooting has.
 */
function* phoutSeconds(start: number, seed: number, slowdown: number, durationS: number, rps: number): Generator<string> {
  const r = rng(seed);
  for (let s = 0; s < durationS; s++) {
    const ramp = s < durationS / 2 ? 0.25 + (0.75 * s) / (durationS / 2) : 1;
    const n = Math.max(1, Math.round(rps * ramp));
    const stress = ramp > 0.6 ? 1 + (slowdown * (ramp - 0.6)) / 0.4 : 1;
    const lines: string[] = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      const u = r();
      const c = u < LOGIN.share ? LOGIN : u < LOGIN.share + SEARCH.share ? SEARCH : CHECKOUT;
      const gauss = Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
      let ms = c.base_ms * stress * Math.exp(0.35 * gauss);
      let net = 0;
      let http = 200;
      const e = r();
      if (e < 0.002) {
        net = 110;
        http = 0;
        ms = 1000 + 100 * r();
      } else if (e < 0.012) http = 503;
      else if (e < 0.02) http = 404;
      const us = Math.max(50, Math.round(ms * 1000));
      const connect = Math.round(us * 0.05);
      const send = Math.round(us * 0.02);
      const latency = Math.round(us * 0.8);
      const receive = us - connect - send - latency;
      const t = start + s + i / n;
      const sizeOut = 120 + Math.round(r() * 40);
      const sizeIn = net ? 0 : 800 + Math.round(r() * 400);
      lines[i] =
        `${t.toFixed(3)}\t${c.tag}#${(i % 7) + 1}\t${us}\t${connect}\t${send}\t${latency}\t${receive}\t0\t` +
        `${sizeOut}\t${sizeIn}\t${net}\t${http}\n`;
    }
    yield lines.join("");
  }
}

function makePhout(start: number, seed: number, slowdown: number): string {
  return [...phoutSeconds(start, seed, slowdown, DURATION_S, RPS)].join("");
}

/** A big phout written to disk second by second (bounded memory), for the performance figures. */
async function writeBigPhout(path: string, start: number, lines: number): Promise<{ lines: number; durationS: number; rps: number }> {
  const durationS = 1000;
  // The ramp-then-const profile sends 0.8125 × rps × duration lines.
  const rps = Math.ceil(lines / (0.8125 * durationS));
  const out = createWriteStream(path);
  let count = 0;
  for (const chunk of phoutSeconds(start, 99, 1.0, durationS, rps)) {
    count += chunk.split("\n").length - 1;
    if (!out.write(chunk)) await new Promise((resolve) => out.once("drain", resolve));
  }
  await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
  return { lines: count, durationS, rps };
}

/** PUT a file as the body, streamed with its Content-Length (the upload API requires it). */
function putFile(path: string, url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const size = statSync(path).size;
    const req = httpRequest(url, {
      method: "PUT",
      headers: { Authorization: `Token ${TOKEN}`, "Content-Type": "application/octet-stream", "Content-Length": size },
    });
    req.on("response", (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => (res.statusCode === 202 ? resolve(body) : reject(new Error(`PUT ${url}: ${res.statusCode} ${body}`))));
    });
    req.on("error", reject);
    createReadStream(path).pipe(req);
  });
}

async function api<T>(method: string, path: string, body?: string | Buffer<ArrayBuffer>, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(BASE + path, {
    method,
    headers: { Authorization: `Token ${TOKEN}`, Accept: "application/json", ...headers },
    body: body ?? null,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return (text ? JSON.parse(text) : null) as T;
}

const JSON_BODY = { "Content-Type": "application/json" };

async function waitStatus(id: number, wanted: string[], timeoutS = 180): Promise<TestMeta & { first_ts: number }> {
  const deadline = Date.now() + timeoutS * 1000;
  let last: TestMeta | null = null;
  while (Date.now() < deadline) {
    last = await api<TestMeta>("GET", `/api/v1/tests/${id}/`);
    if (wanted.includes(last.status) && last.first_ts) return { ...last, first_ts: last.first_ts };
    if (last.status === "failed") throw new Error(`test ${id} failed: ${last.error}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`test ${id} not ${wanted.join("/")} after ${timeoutS}s (last: ${JSON.stringify(last)})`);
}

interface Uploaded {
  id: number;
  lines: number;
  badLines: number;
}

async function uploadTest(
  name: string,
  version: string,
  start: number,
  seed: number,
  slowdown: number,
  gzip: boolean,
  badLines = 0,
  extra: Record<string, string> = {},
): Promise<Uploaded> {
  const test = await api<{ id: number }>(
    "POST",
    "/api/v1/tests/",
    JSON.stringify({
      ...extra,
      name,
      description: `generated phout, ${DURATION_S} s, up to ${RPS} rps`,
      component: COMPONENT,
      version,
      person: "e2e",
      task: "LOAD-42",
      target: "billing.internal:8080",
      instances: 200,
      loadscheme: [`line(${Math.round(RPS / 4)},${RPS},${Math.round(DURATION_S / 2)}s)`, `const(${RPS},${Math.round(DURATION_S / 2)}s)`],
      ...extra,
    }),
    JSON_BODY,
  );
  // Malformed lines, as a truncated or hand-edited file has: skipped and reported with their numbers.
  const text = makePhout(start, seed, slowdown) + "not a phout line\n".repeat(badLines);
  // (Buffer.from: the fetch body type wants a Buffer over a plain ArrayBuffer, which gzipSync does not promise.)
  const body = gzip ? Buffer.from(gzipSync(Buffer.from(text))) : Buffer.from(text);
  await api("PUT", `/api/v1/tests/${test.id}/phout`, body, { "Content-Type": "application/octet-stream" });
  return { id: test.id, lines: text.split("\n").length - 1 - badLines, badLines };
}

/** One second of tank-protocol data (push_data.json's item) for one case, or for all of them (overall = 1). */
interface TankItem {
  overall: number;
  case: string;
  net_codes: { code: number; count: number }[];
  http_codes: { code: number; count: number }[];
  time_intervals: { from: number; to: number; count: number }[];
  trail: Record<string, number | string>;
}

function tankItem(time: string, caseName: string, overall: number, times: number[]): TankItem {
  const n = times.length;
  const sorted = [...times].sort((a, b) => a - b);
  const qv = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  const bins = new Map<number, number>();
  for (const t of times) {
    const to = Math.ceil(t);
    bins.set(to, (bins.get(to) ?? 0) + 1);
  }
  return {
    overall,
    case: caseName,
    net_codes: [{ code: 0, count: n }],
    http_codes: [{ code: 200, count: n }],
    time_intervals: [...bins.entries()].map(([to, count]) => ({ from: 0, to, count })),
    trail: {
      time,
      reqps: n,
      resps: n,
      expect: times.reduce((a, b) => a + b, 0) / n,
      disper: 0,
      self_load: 0,
      input: n * 900,
      output: n * 150,
      connect_time: 0.5,
      send_time: 0.1,
      latency: 20,
      receive_time: 0.4,
      threads: 50,
      q50: qv(50),
      q75: qv(75),
      q80: qv(80),
      q85: qv(85),
      q90: qv(90),
      q95: qv(95),
      q98: qv(98),
      q99: qv(99),
      q100: sorted[sorted.length - 1] ?? 0,
    },
  };
}

/** A tank stream: the same JSON the uploader posts (tank-protocol.md), 60 s of per-second data plus telegraf. */
async function streamTest(
  start: number,
  { seconds = 60, close = true, name = "streamed by the tank" }: { seconds?: number; close?: boolean; name?: string } = {},
): Promise<{ id: number; upload_token: string; start: number }> {
  const q = `api_token=${encodeURIComponent(TOKEN)}`;
  const create = await fetch(`${BASE}/api/job/create.json?${q}`, {
    method: "POST",
    headers: JSON_BODY,
    body: JSON.stringify({ task: "LOAD-7", person: "tank", tank: "tank01", host: "stream.internal", port: 80, loadscheme: ["const(50,60s)"], detailed_time: null, notify: [] }),
  });
  if (!create.ok) throw new Error(`create.json: ${create.status} ${await create.text()}`);
  const [created] = (await create.json()) as { job: number; upload_token: string }[];
  if (!created) throw new Error("create.json answered no job");
  const { job, upload_token } = created;
  const tq = `upload_token=${upload_token}&${q}`;
  const form = (field: string, value: string): URLSearchParams => new URLSearchParams({ [field]: value });
  await fetch(`${BASE}/api/job/${job}/edit.json?${tq}`, {
    method: "POST",
    headers: JSON_BODY,
    body: JSON.stringify({ name, component: COMPONENT, version: "stream", instances: 50 }),
  });
  await fetch(`${BASE}/api/job/${job}/configinitial.txt?${tq}`, { method: "POST", body: form("configinitial", "phantom:\n  address: stream.internal:80\n  load_profile: {load_type: rps, schedule: const(50,60s)}\noverload:\n  enabled: true\n") });
  await fetch(`${BASE}/api/job/${job}/jobmonitoringconfig.txt?${tq}`, { method: "POST", body: form("jobmonitoringconfig", "<Monitoring><Host address=\"db01\"/></Monitoring>") });
  const r = rng(7);
  const cases: [string, number, number][] = [
    ["index", 30, 20],
    ["api", 20, 45],
  ];
  for (let s = 0; s < seconds; s += 5) {
    const items: TankItem[] = [];
    for (let k = s; k < s + 5; k++) {
      const time = String(start + k);
      const perCase = cases.map(([tag, n, base]) => ({ tag, times: Array.from({ length: n }, () => base * Math.exp(0.3 * (r() - 0.5) * 2)) }));
      for (const c of perCase) items.push(tankItem(time, c.tag, 0, c.times));
      items.push(tankItem(time, "", 1, perCase.flatMap((c) => c.times)));
    }
    const res = await fetch(`${BASE}/api/job/${job}/push_data.json?${tq}`, {
      method: "POST",
      headers: JSON_BODY,
      body: JSON.stringify(items),
    });
    if (!res.ok) throw new Error(`push_data: ${res.status} ${await res.text()}`);
    const mon = [];
    for (let k = s; k < s + 5; k++) {
      mon.push({
        timestamp: start + k,
        data: {
          db01: {
            comment: "",
            metrics: {
              "custom:cpu-cpu-total_usage_user": 30 + 20 * r(),
              "custom:cpu-cpu-total_usage_system": 5 + 3 * r(),
              Memory_used: 2e9 + 1e8 * r(),
              Memory_free: 6e9,
              System_la1: 0.5 + r(),
              "custom:net-eth0_bytes_recv": 180000 + 20000 * r(),
              "custom:diskio-sda_write_bytes": 200000 * r(),
              // A metric name with HTML in it: it must show as text, never as a live link (EVIL_METRIC).
              [EVIL_METRIC]: 1,
            },
          },
        },
      });
    }
    const mres = await fetch(`${BASE}/api/monitoring/receiver/push?job_id=${job}&${tq}`, { method: "POST", body: JSON.stringify(mon) });
    if (!mres.ok) throw new Error(`monitoring push: ${mres.status} ${await mres.text()}`);
  }
  if (close) {
    const res = await fetch(`${BASE}/api/job/${job}/close.json?exitcode=0&${tq}`);
    if (!res.ok) throw new Error(`close.json: ${res.status}`);
  }
  return { id: job, upload_token, start };
}

/** The big test: generated to disk, uploaded, ingested; the times of each step are part of the figures. */
async function perfTest(path: string): Promise<Span & { lines: number }> {
  const t0 = Date.now();
  const start = Math.floor(Date.now() / 1000) - 4000;
  const { lines, durationS, rps } = await writeBigPhout(path, start, PERF_LINES);
  const t1 = Date.now();
  const test = await api<{ id: number }>(
    "POST",
    "/api/v1/tests/",
    JSON.stringify({
      name: `big: ${lines} lines`,
      component: "e2e-perf",
      person: "e2e",
      loadscheme: [`line(${Math.round(rps / 4)},${rps},${durationS / 2}s)`, `const(${rps},${durationS / 2}s)`],
    }),
    JSON_BODY,
  );
  await putFile(path, `${BASE}/api/v1/tests/${test.id}/phout`);
  const t2 = Date.now();
  const meta = await waitStatus(test.id, ["ready"], 3600);
  const t3 = Date.now();
  rmSync(path, { force: true });
  console.log(
    `perf test ${test.id}: ${lines} lines generated in ${((t1 - t0) / 1000).toFixed(1)} s, ` +
      `sent in ${((t2 - t1) / 1000).toFixed(1)} s, ready ${((t3 - t2) / 1000).toFixed(1)} s later`,
  );
  return { id: test.id, lines, first_ts: meta.first_ts, last_ts: meta.last_ts };
}

/** One more second of the online test (used by the specs to see the page update itself). */
export async function pushMore(base: string, token: string, online: OnlineTest, second: number): Promise<void> {
  const q = `upload_token=${online.upload_token}&api_token=${encodeURIComponent(token)}`;
  const time = String(online.start + second);
  const item = (overall: number, caseName: string): TankItem => ({
    overall,
    case: caseName,
    net_codes: [{ code: 0, count: 40 }],
    http_codes: [{ code: 200, count: 40 }],
    time_intervals: [{ from: 0, to: 25, count: 40 }],
    trail: { time, reqps: 40, resps: 40, expect: 24.5, disper: 0, self_load: 0, input: 36000, output: 6000, connect_time: 0.5, send_time: 0.1, latency: 20, receive_time: 0.4, threads: 50, q50: 24.5, q75: 24.7, q80: 24.8, q85: 24.8, q90: 24.9, q95: 24.9, q98: 25, q99: 25, q100: 25 },
  });
  const res = await fetch(`${base}/api/job/${online.id}/push_data.json?${q}`, {
    method: "POST",
    headers: JSON_BODY,
    body: JSON.stringify([item(0, "index"), item(1, "")]),
  });
  if (!res.ok) throw new Error(`push_data: ${res.status} ${await res.text()}`);
}

/** Seeds the stack; `scratch` is a directory for the big test's file. */
export async function seedStack(scratch: string): Promise<Seed> {
  if (!TOKEN) throw new Error("E2E_TOKEN is not set: deploy/e2e.sh issues one");
  // Whole seconds in the recent past, so the tests look like last hour's shootings.
  const now = Math.floor(Date.now() / 1000);
  const t0 = now - 3 * DURATION_S - 600;
  const started = Date.now();
  const a = await uploadTest("billing ramp, baseline", "1.0", t0, 1, 0.5, false);
  const b = await uploadTest("billing ramp, candidate", "1.1", t0 + DURATION_S + 120, 2, 3.0, true, 2);
  const stream = await streamTest(now - 300);
  // Still shooting: the tank keeps the test open (no close.json), so the page must update itself.
  const online = await streamTest(now - 30, { seconds: 10, close: false, name: "still shooting" });
  // Created, its phout not sent yet: the page shows that it waits for data.
  const waiting = await api<{ id: number }>(
    "POST",
    "/api/v1/tests/",
    JSON.stringify({ name: "waiting for its phout", component: COMPONENT, person: "e2e" }),
    JSON_BODY,
  );
  // No name, no person (the token's owner is the author), a long component.
  const unnamed = await uploadTest("", "3.0", t0 - DURATION_S - 120, 3, 0.2, false, 0, {
    component: LONG_COMPONENT,
    person: "",
    task: "",
  });
  // An upload that is not a phout at all: refused, and the report and the list must say why.
  const refused = await api<{ id: number }>(
    "POST",
    "/api/v1/tests/",
    JSON.stringify({ name: "refused upload", component: COMPONENT, person: "e2e" }),
    JSON_BODY,
  );
  // Refused at once (400, naming the lines) or accepted then failed by the worker: either way the upload has
  // a reason the pages must show.
  const refusal = await fetch(`${BASE}/api/v1/tests/${refused.id}/phout`, {
    method: "PUT",
    headers: { Authorization: `Token ${TOKEN}`, "Content-Type": "application/octet-stream" },
    body: Buffer.from("this is not a phout file\nnor is this\n"),
  });
  if (![202, 400].includes(refusal.status)) throw new Error(`refused upload: ${refusal.status} ${await refusal.text()}`);
  const [ma, mb, ms, mo, mu] = await Promise.all([
    waitStatus(a.id, ["ready"]),
    waitStatus(b.id, ["ready"]),
    waitStatus(stream.id, ["ready"]),
    waitStatus(online.id, ["online"]),
    waitStatus(unnamed.id, ["ready"]),
  ]);
  const seeded: Seed = {
    base: BASE,
    component: COMPONENT,
    a: { id: a.id, lines: a.lines, first_ts: ma.first_ts, last_ts: ma.last_ts },
    b: { id: b.id, lines: b.lines, bad_lines: b.badLines, first_ts: mb.first_ts, last_ts: mb.last_ts },
    stream: { id: stream.id, first_ts: ms.first_ts, last_ts: ms.last_ts, status: ms.status },
    online: { id: online.id, upload_token: online.upload_token, start: online.start, last_ts: mo.last_ts },
    waiting: { id: waiting.id },
    unnamed: { id: unnamed.id, first_ts: mu.first_ts, last_ts: mu.last_ts },
    refused: { id: refused.id },
    seed_s: (Date.now() - started) / 1000,
  };
  if (PERF_LINES > 0) seeded.perf = await perfTest(`${scratch}/perf.phout`);
  console.log(`seeded: tests ${a.id} (${a.lines} lines), ${b.id} (${b.lines} lines, gzip), stream ${stream.id} in ${seeded.seed_s.toFixed(1)} s`);
  return seeded;
}
