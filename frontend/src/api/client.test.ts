/** Tests: the answers a report page came with are taken once each, by the URL the app asks, then fetched. */
import { afterEach, describe, expect, it, vi } from "vitest";

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

function pageWith(text: string | null): void {
  vi.stubGlobal("document", {
    getElementById: (id: string) => (id === "first-screen" && text !== null ? { textContent: text } : null),
    cookie: "",
  });
}

describe("getJson with the page's first screen", () => {
  it("answers each embedded URL once, then asks the server", async () => {
    pageWith(JSON.stringify({ "/api/v1/tests/7/summary": { n: 1 }, "/api/v1/tests/7/charts/quantiles?compress_ratio=auto": { c: 2 } }));
    const fetched: string[] = [];
    vi.stubGlobal("fetch", (url: string) => {
      fetched.push(url);
      return Promise.resolve(new Response(JSON.stringify({ fetched: url }), { status: 200 }));
    });
    const { getJson } = await import("./client");
    expect(await getJson("/api/v1/tests/7/summary")).toEqual({ n: 1 });
    expect(await getJson("/api/v1/tests/7/charts/quantiles", [["compress_ratio", "auto"]])).toEqual({ c: 2 });
    expect(fetched).toEqual([]);
    expect(await getJson("/api/v1/tests/7/summary")).toEqual({ fetched: "/api/v1/tests/7/summary" });
    expect(await getJson("/api/v1/tests/7/summary", [["from", "5"]])).toEqual({ fetched: "/api/v1/tests/7/summary?from=5" });
    expect(fetched).toEqual(["/api/v1/tests/7/summary", "/api/v1/tests/7/summary?from=5"]);
  });

  it("asks the server for everything when the page carries nothing or something broken", async () => {
    pageWith("{not json");
    vi.stubGlobal("fetch", (url: string) => Promise.resolve(new Response(JSON.stringify({ fetched: url }), { status: 200 })));
    const { getJson } = await import("./client");
    expect(await getJson("/api/v1/me")).toEqual({ fetched: "/api/v1/me" });
  });
});
