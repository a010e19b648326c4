/**
 * The one place that talks HTTP to the backend. Errors come back as ApiError carrying the status and the
 * server's `{"error": "..."}` text (or DRF's `{"detail": "..."}`), so pages can show what went wrong.
 */

export class ApiError extends Error {
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = "ApiError";
    this.status = status;
  }
}

export type Params = [string, string][];

export function buildUrl(path: string, params: Params = []): string {
  const query = new URLSearchParams(params).toString();
  return query ? `${path}?${query}` : path;
}

function csrfToken(): string {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match?.[1] ? decodeURIComponent(match[1]) : "";
}

async function errorOf(response: Response): Promise<ApiError> {
  let message = `${response.status} ${response.statusText}`.trim();
  try {
    const body: unknown = await response.json();
    if (body && typeof body === "object") {
      const o = body as Record<string, unknown>;
      const text = o.error ?? o.detail;
      if (typeof text === "string" && text) message = text;
    }
  } catch {
    // Not JSON (a proxy's HTML error page): the status line says enough.
  }
  return new ApiError(response.status, message);
}

/**
 * The answers the report page came with (backend/web/first_screen.py: JSON in `<script id="first-screen">`, keyed
 * by the URL asked here). Each is taken once, by the first request for its URL: a later one (a refresh, polling)
 * asks the server.
 */
let firstScreen: Map<string, unknown> | null = null;

export function takeFirstScreen(url: string): { hit: true; body: unknown } | { hit: false } {
  if (firstScreen === null) {
    firstScreen = new Map();
    const element = typeof document === "undefined" ? null : document.getElementById("first-screen");
    if (element?.textContent) {
      try {
        const parsed: unknown = JSON.parse(element.textContent);
        if (parsed && typeof parsed === "object") firstScreen = new Map(Object.entries(parsed));
      } catch {
        // A page cut short by a proxy: every answer is asked as before.
      }
    }
  }
  if (!firstScreen.has(url)) return { hit: false };
  const body = firstScreen.get(url);
  firstScreen.delete(url);
  return { hit: true, body };
}

export async function getJson<T>(path: string, params: Params = [], signal?: AbortSignal): Promise<T> {
  const preloaded = takeFirstScreen(buildUrl(path, params));
  if (preloaded.hit) return preloaded.body as T;
  let response: Response;
  try {
    response = await fetch(buildUrl(path, params), {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
      signal,
    });
  } catch (e) {
    if (e instanceof DOMException && e.name === "AbortError") throw e;
    throw new ApiError(0, "the server cannot be reached");
  }
  if (!response.ok) throw await errorOf(response);
  return (await response.json()) as T;
}

export async function sendJson<T>(method: "POST" | "PUT" | "DELETE" | "PATCH", path: string, body?: unknown): Promise<T | null> {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: {
      Accept: "application/json",
      "Content-Type": "application/json",
      "X-CSRFToken": csrfToken(),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw await errorOf(response);
  if (response.status === 204) return null;
  const text = await response.text();
  return text ? (JSON.parse(text) as T) : null;
}
