/** Tests: the compare tables' words and figures: each verdict beside the figure it judges, "not judged" with its
 * reason, whole-test differences as the API sends them, code shares with counts beside them. */
import { describe, expect, it } from "vitest";
import { codeRows, quantileRows, type CompareCodes, type CompareTables } from "./compareTable";

const ANSWER: CompareTables = {
  tests: [17742, 17743],
  quantiles_ms: { "50": [200, 204], "99": [1065, 1715], "98": [855, 1010], "100": [2000, 9000] },
  diff_ms: { "50": [0, 4], "99": [0, 650], "98": [0, 155], "100": [0, 7000] },
  diff_pct: { "50": [0, 2], "99": [0, 61.03286], "98": [0, 18.128655], "100": [0, 350] },
  change_pct: { "50": [null, 1.2], "99": [null, 55.25], "98": [null, 15.04], "100": [null, null] },
  change_interval_pct: { "50": [null, [-0.5, 3.04]], "99": [null, [48.14, 74.0]], "98": [null, [9.95, 20]], "100": [null, null] },
  verdict: { "50": [null, "same"], "99": [null, "worse"], "98": [null, "worse"], "100": [null, null] },
  verdict_notes: { "50": [null, null], "99": [null, null], "98": [null, null], "100": [null, "fewer than 10 responses"] },
};

describe("quantileRows", () => {
  it("writes Overload's form, the whole-test % and the verdict beside the figure it judges", () => {
    const rows = quantileRows(ANSWER);
    expect(rows.map((r) => r.level)).toEqual(["100", "99", "98", "50"]);
    expect(rows[1]?.cells).toEqual([
      { text: "1065.000 ms", pct: null, verdict: null, judged: null, note: null },
      {
        text: "1715.000 (+650.000)",
        pct: "+61.0 %",
        verdict: "worse",
        judged: "+55.3 % (+48.1 % … +74.0 %)",
        note: null,
      },
    ]);
    expect(rows[3]?.cells[1]).toMatchObject({ text: "204.000 (+4.000)", verdict: "same", judged: "+1.2 % (−0.5 % … +3.0 %)" });
  });

  it("says a level was not judged, and why", () => {
    const cell = quantileRows(ANSWER)[0]?.cells[1];
    expect(cell).toMatchObject({ verdict: "not judged", note: "fewer than 10 responses", judged: null, pct: "+350.0 %" });
  });

  it("has nothing to say of a test without responses", () => {
    const empty = quantileRows({ ...ANSWER, quantiles_ms: { "50": [200, null] }, verdict: { "50": [null, null] } });
    expect(empty[0]?.cells[1]).toMatchObject({ text: "—", verdict: null });
  });
});

describe("codeRows", () => {
  it("shows shares with counts beside, the codes whose share moved most first", () => {
    const answer: CompareCodes = {
      tests: [1, 2],
      http_codes: { "200": [5000, 4840], "500": [0, 160], "404": [3, 3] },
      net_codes: {},
      code_meaning: {
        http: {
          "200": { name: "OK", class: "success" },
          "500": { name: "Internal Server Error", class: "server_error" },
          "404": { name: "Not Found", class: "client_error" },
        },
        net: {},
      },
      code_share: { http: { "200": [0.9994, 0.9674], "500": [0, 0.032], "404": [0.0006, 0.0006] }, net: {} },
      code_share_diff: { http: { "200": [0, -0.032], "500": [0, 0.032], "404": [0, 0] }, net: {} },
      code_verdicts: { http: { "200": [null, "worse"], "500": [null, "worse"], "404": [null, "same"] }, net: {} },
    } as CompareCodes;
    const rows = codeRows(answer, "http");
    expect(rows.map((r) => r.code)).toEqual(["200", "500", "404"]);
    expect(rows[1]).toEqual({
      code: "500",
      name: "Internal Server Error",
      cells: [
        { count: 0, share: "0.00 %", diff: null, verdict: null },
        { count: 160, share: "3.20 %", diff: "+3.20 pt", verdict: "worse" },
      ],
    });
    expect(codeRows(answer, "net")).toEqual([]);
  });
});
