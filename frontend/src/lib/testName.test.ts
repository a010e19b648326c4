/** Tests: the name shown for unnamed tests. */
import { describe, expect, it } from "vitest";
import { displayName } from "./testName";

describe("displayName", () => {
  it("uses the name, else what was tested", () => {
    expect(displayName({ id: 1, name: "ramp" })).toEqual({ text: "ramp", named: true });
    expect(displayName({ id: 2, name: "", component: "api", version: "1.2", target_host: "10.0.0.1" })).toEqual({
      text: "api v1.2 → 10.0.0.1",
      named: false,
    });
    expect(displayName({ id: 3, name: "  ", task: "LOAD-7" })).toEqual({ text: "LOAD-7", named: false });
    expect(displayName({ id: 4 })).toEqual({ text: "Test #4", named: false });
  });
});
