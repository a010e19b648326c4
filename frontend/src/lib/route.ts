/** Maps a page path to the page that renders it; pure so it is unit-tested. */

export type Route =
  | { kind: "list" }
  | { kind: "report"; id: number }
  | { kind: "compare"; ids: number[] }
  | { kind: "component"; name: string }
  | { kind: "storage" }
  | { kind: "members"; slug: string }
  | { kind: "audit"; slug: string }
  | { kind: "notfound" };

export function routeOf(pathname: string): Route {
  const parts = pathname.split("/").filter((p) => p !== "");
  if (parts.length === 0) return { kind: "list" };
  const [head, ...rest] = parts;
  if (head === "compare") {
    const ids = rest.map(Number);
    if (ids.length >= 2 && ids.every((n) => Number.isInteger(n) && n > 0)) return { kind: "compare", ids };
    return { kind: "notfound" };
  }
  if (head === "component" && rest.length === 1 && rest[0]) {
    return { kind: "component", name: decodeURIComponent(rest[0]) };
  }
  if (head === "projects" && rest.length === 2 && rest[0]) {
    const slug = decodeURIComponent(rest[0]);
    if (rest[1] === "members") return { kind: "members", slug };
    if (rest[1] === "audit") return { kind: "audit", slug };
  }
  if (parts.length === 1 && head === "storage") return { kind: "storage" };
  if (parts.length === 1 && head && /^\d+$/.test(head)) return { kind: "report", id: Number(head) };
  return { kind: "notfound" };
}
