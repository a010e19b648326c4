/** Tests: the local-time shift of time figures and its inverse (run with TZ set by the test runner or UTC). */
import { describe, expect, it } from "vitest";
import { figureInLocalTime, localAxisToUnix, localOffsetMs, offsetLabel } from "./timeZone";

describe("figureInLocalTime", () => {
  it("moves x values, range and title of a date axis by the local offset", () => {
    const t = 1_700_000_000_000;
    const fig = figureInLocalTime({
      data: [{ x: [t, t + 1000], y: [1, 2] }],
      layout: { xaxis: { type: "date", range: [t, t + 1000], title: { text: "time, UTC" } } },
    });
    const off = localOffsetMs(t);
    expect(fig.data[0]?.x).toEqual([t + off, t + 1000 + off]);
    const xaxis = fig.layout?.xaxis as { range: number[]; title: { text: string } };
    expect(xaxis.range).toEqual([t + off, t + 1000 + off]);
    expect(xaxis.title.text).toBe(`time, local (${offsetLabel(t)})`);
    expect(localAxisToUnix((t + off) / 1000)).toBe(t / 1000);
  });

  it("leaves charts that are not on the clock alone", () => {
    const fig = { data: [{ x: [1, 2] }], layout: { xaxis: { title: { text: "responses/s" } } } };
    expect(figureInLocalTime(fig)).toBe(fig);
  });
});
