/** A test's result in the list: the tank's verdict (errors as their share), else the status. */
import type { TestMeta } from "../../api/types";
import { StatusBadge } from "../../components/StatusBadge";
import { formatPercent } from "../../lib/format";

export function TestResult({ test }: { test: TestMeta }) {
  const result = test.result;
  if (!result) return <StatusBadge status={test.status} />;
  // The error share is the report's (analytics/definitions.py), rounded here as the report's header rounds it.
  const text = result.kind === "errors" ? `${formatPercent(test.error_share)} errors` : result.text;
  return (
    <span className={`result result-${result.kind}`} title={result.text} data-result={result.kind}>
      {text}
    </span>
  );
}
