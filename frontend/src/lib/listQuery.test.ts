/** Tests: The test list's filters in the query string, and the compare link of the picked tests. */
import { describe, expect, it } from "vitest";
import { EMPTY_LIST_QUERY, compareUrl, nextOrdering, parseListQuery, serializeListQuery, sortState } from "./listQuery";

describe("list query", () => {
  it("round-trips the filters and drops defaults", () => {
    const q = { ...EMPTY_LIST_QUERY, search: "api v2", status: "ready", starred: true, since: "2026-01-02", page: 3 };
    expect(parseListQuery(serializeListQuery(q))).toEqual(q);
    expect(serializeListQuery(EMPTY_LIST_QUERY)).toBe("");
  });

  it("ignores malformed values", () => {
    const q = parseListQuery("?status=weird&page=-2&since=yesterday");
    expect(q).toEqual(EMPTY_LIST_QUERY);
  });

  it("builds compare links only for two or more distinct tests", () => {
    expect(compareUrl([17743, 17742])).toBe("/compare/17742/17743");
    expect(compareUrl([5, 5])).toBeNull();
    expect(compareUrl([3, 1, 2])).toBe("/compare/1/2/3");
    expect(compareUrl([1, 2, 3, 4, 5])).toBe("/compare/1/2/3/4/5");
    expect(compareUrl([1, 2, 3, 4, 5, 6])).toBeNull(); // the compare page shows five at most
  });
});

describe("list order and tags", () => {
  it("keeps tags and a known ordering in the link", () => {
    const q = { ...EMPTY_LIST_QUERY, tags: ["release", "nightly"], ordering: "-q99" };
    expect(serializeListQuery(q)).toBe("?tag=release&tag=nightly&ordering=-q99");
    expect(parseListQuery(serializeListQuery(q))).toEqual(q);
    expect(parseListQuery("?ordering=password").ordering).toBe("");
  });

  it("sorts figures high first, names A first, and flips on the second click", () => {
    expect(nextOrdering("", "q99")).toBe("-q99");
    expect(nextOrdering("-q99", "q99")).toBe("q99");
    expect(nextOrdering("-q99", "name")).toBe("name");
    expect(sortState("", "created_at")).toBe("descending");
    expect(sortState("name", "name")).toBe("ascending");
    expect(sortState("name", "q99")).toBe("none");
  });
});
