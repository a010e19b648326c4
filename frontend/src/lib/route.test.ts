/** Tests: Page paths to pages. */
import { describe, expect, it } from "vitest";
import { routeOf } from "./route";

describe("routeOf", () => {
  it("maps the page paths", () => {
    expect(routeOf("/")).toEqual({ kind: "list" });
    expect(routeOf("/42")).toEqual({ kind: "report", id: 42 });
    expect(routeOf("/42/")).toEqual({ kind: "report", id: 42 });
    expect(routeOf("/compare/1/2/3")).toEqual({ kind: "compare", ids: [1, 2, 3] });
    expect(routeOf("/component/my%20svc")).toEqual({ kind: "component", name: "my svc" });
    expect(routeOf("/storage")).toEqual({ kind: "storage" });
    expect(routeOf("/projects/team-a/members")).toEqual({ kind: "members", slug: "team-a" });
    expect(routeOf("/projects/team-a/audit/")).toEqual({ kind: "audit", slug: "team-a" });
  });
  it("rejects the rest", () => {
    expect(routeOf("/compare/1")).toEqual({ kind: "notfound" });
    expect(routeOf("/compare/1/x")).toEqual({ kind: "notfound" });
    expect(routeOf("/abc")).toEqual({ kind: "notfound" });
    expect(routeOf("/projects/team-a")).toEqual({ kind: "notfound" });
    expect(routeOf("/projects/team-a/settings")).toEqual({ kind: "notfound" });
  });
});
