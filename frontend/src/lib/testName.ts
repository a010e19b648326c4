/** What to call a test when it has no name: what it tested and when, never "(no name)". */
import type { TestMeta } from "../api/types";

export function displayName(test: Pick<TestMeta, "id" | "name" | "component" | "version" | "target_host" | "task">): {
  text: string;
  named: boolean;
} {
  const name = (test.name ?? "").trim();
  if (name) return { text: name, named: true };
  const what = [test.component, test.version ? `v${test.version}` : ""].filter(Boolean).join(" ");
  const parts = [what, test.target_host ? `→ ${test.target_host}` : "", test.task ?? ""].filter(Boolean);
  return { text: parts.length ? parts.join(" ") : `Test #${test.id}`, named: false };
}
