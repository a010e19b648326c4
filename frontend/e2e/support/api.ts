/** The JSON API as the specs call it: anonymously (what any reader sees) or with the seeding user's token. */
import { TOKEN } from "./env";

interface CallOptions {
  method?: string;
  body?: unknown;
  /** Send the seeding user's API token (E2E_TOKEN). */
  token?: boolean;
}

/** One call; the status and the parsed body, whatever the status. */
export async function request<T>(base: string, path: string, { method = "GET", body, token = false }: CallOptions = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(base + path, {
    method,
    headers: {
      Accept: "application/json",
      ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      ...(token ? { Authorization: `Token ${TOKEN}` } : {}),
    },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

/** One call that must succeed: its parsed body. */
export async function apiOk<T>(base: string, path: string, options: CallOptions = {}): Promise<T> {
  const res = await request<T>(base, path, options);
  if (res.status >= 400) throw new Error(`${options.method ?? "GET"} ${path}: ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`);
  return res.body;
}

/** A call that may answer 202 {"status": "pending"} while the server computes (compare): ask until ready. */
export async function apiReady<T>(base: string, path: string, { token = false, timeoutMs = 120000 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const body = await apiOk<T | { status: "pending" }>(base, path, { token });
    if ((body as { status?: unknown } | null)?.status !== "pending") return body as T;
    if (Date.now() > deadline) throw new Error(`GET ${path}: still pending after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The parts of the API's answers the specs compare the pages with. */
export type Quantiles = Record<string, number | null>;

export interface Summary {
  count: number;
  quantiles_ms: Quantiles;
  http_codes: Record<string, number>;
  outcomes: { failed_share: number };
}

export interface Result {
  kind: string;
  text: string;
}

export interface TestRow {
  id: number;
  name: string;
  component: string;
  version: string;
  tags: string[];
  description: string;
  q99_ms: number | null;
  max_rps: number;
  error_share: number;
  result: Result;
  stop_requested: boolean;
  stop_ends_shooting: boolean;
}

export interface Page<T> {
  results: T[];
}

export interface Compare {
  quantiles_ms: Record<string, (number | null)[]>;
  diff_ms?: Record<string, (number | null)[]>;
  verdict: Record<string, (string | null)[]>;
  figures?: Record<string, unknown>;
  summary: string[];
}
