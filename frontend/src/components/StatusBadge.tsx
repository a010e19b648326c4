/** A test's status as a coloured badge (text always present, colour only helps). */
import type { TestStatus } from "../api/types";

export function StatusBadge({ status }: { status: TestStatus | string }) {
  return <span className={`badge status-${status}`}>{status}</span>;
}
