/** Tests: The test list's filters in the query string, and the compare link of the picked tests. */
import { describe, expect, it } from "vitest";
import { EMPTY_LIST_QUERY, compareUrl, parseListQuery, serializeListQuery } from "./listQuery";

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
  });
});
