/** Tests: CSV quoting. */
import { describe, expect, it } from "vitest";
import { toCsv } from "./csv";

describe("toCsv", () => {
  it("quotes what needs quoting and leaves numbers raw", () => {
    expect(toCsv(["code", "meaning", "count"], [[200, "OK", 5], [503, 'Service "Unavailable", retry', null]])).toBe(
      'code,meaning,count\r\n200,OK,5\r\n503,"Service ""Unavailable"", retry",\r\n',
    );
  });
  it("keeps spreadsheet formulas as text", () => {
    expect(toCsv(["case"], [["=HYPERLINK(1)"], [-5]])).toBe("case\r\n'=HYPERLINK(1)\r\n-5\r\n");
  });
});
