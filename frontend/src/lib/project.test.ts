import { beforeEach, describe, expect, it, vi } from "vitest";
import {
  chosenProject,
  componentProjectOf,
  componentUrl,
  effectiveProject,
  projectParams,
  refusalText,
  roleAtLeast,
  setChosenProject,
  subscribeProject,
} from "./project";

describe("roles", () => {
  it("include every role below them", () => {
    expect(roleAtLeast("admin", "maintainer")).toBe(true);
    expect(roleAtLeast("maintainer", "maintainer")).toBe(true);
    expect(roleAtLeast("uploader", "maintainer")).toBe(false);
    expect(roleAtLeast("viewer", "uploader")).toBe(false);
  });

  it("give nothing to no role or an unknown one", () => {
    expect(roleAtLeast(null, "viewer")).toBe(false);
    expect(roleAtLeast(undefined, "viewer")).toBe(false);
    expect(roleAtLeast("owner", "viewer")).toBe(false);
  });

  it("word a refusal as the API does", () => {
    expect(refusalText("maintainer", "uploader", "team")).toBe(
      "This needs the maintainer role in project 'team'; you are uploader.",
    );
    expect(refusalText("admin", null, "")).toBe("This needs the admin role in project 'default'; you are not a member.");
  });
});

describe("the chosen project", () => {
  beforeEach(() => {
    const store = new Map<string, string>();
    vi.stubGlobal("localStorage", {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
      removeItem: (k: string) => void store.delete(k),
    });
  });

  it("is kept in localStorage and tells its listeners", () => {
    const seen: string[] = [];
    const stop = subscribeProject(() => seen.push(chosenProject()));
    setChosenProject("team");
    expect(globalThis.localStorage.getItem("tankodrom.project")).toBe("team");
    setChosenProject("");
    expect(globalThis.localStorage.getItem("tankodrom.project")).toBeNull();
    stop();
    setChosenProject("other");
    expect(seen).toEqual(["team", ""]);
  });

  it("falls back to every project when the reader no longer holds a role in it", () => {
    expect(effectiveProject("team", ["default", "team"])).toBe("team");
    expect(effectiveProject("gone", ["default", "team"])).toBe("");
    expect(effectiveProject("team", null)).toBe("team"); // not known yet: kept
    expect(effectiveProject("", ["default"])).toBe("");
  });
});

describe("a component's project", () => {
  it("comes from the link first, then the chosen project", () => {
    expect(componentProjectOf("?project=team", "other")).toBe("team");
    expect(componentProjectOf("", "other")).toBe("other");
    expect(componentProjectOf("?x=1", "")).toBe("");
  });

  it("is sent only when there is one, and carried by the component's links", () => {
    expect(projectParams("")).toEqual([]);
    expect(projectParams("team")).toEqual([["project", "team"]]);
    expect(componentUrl("api gw", "team")).toBe("/component/api%20gw?project=team");
    expect(componentUrl("api", null)).toBe("/component/api");
  });
});
