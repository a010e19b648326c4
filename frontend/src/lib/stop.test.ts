import { describe, expect, it } from "vitest";
import { stopMark, stopWords } from "./stop";

describe("stopWords", () => {
  it("says an overload-mode tank keeps shooting, before and after the click", () => {
    const words = stopWords(false);
    for (const text of [words.before, words.confirm, words.after]) {
      expect(text).toContain("the tank will keep shooting until its schedule ends; its data will not be recorded");
    }
  });
  it("says a tank with the status call ends its shooting", () => {
    const words = stopWords(true);
    expect(words.before).toContain("ends the tank's shooting");
    expect(words.after).toContain("ends the shooting");
    expect(words.confirm).not.toContain("keep shooting");
  });
});

describe("stopMark", () => {
  it("is absent without a stop", () => {
    expect(stopMark(null, 100, false)).toBeNull();
    expect(stopMark(undefined, 100, true)).toBeNull();
  });
  it("marks the stop's second inside the data", () => {
    expect(stopMark(150.7, 200, true)).toEqual({ ts: 150, label: "stopped from the web", colour: "#8e44ad" });
  });
  it("marks the last stored second when the stop came after it", () => {
    const mark = stopMark(205.2, 203, false);
    expect(mark?.ts).toBe(203);
    expect(mark?.label).toBe("stopped from the web: the tank shot on, not recorded (after this second)");
  });
});
