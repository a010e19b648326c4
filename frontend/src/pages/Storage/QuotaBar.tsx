/** The storage quota: how much of it the stored tests use, and that uploads are refused once it is full. */
import type { StorageAnswer } from "../../api/types";
import { formatBytes, formatPercent } from "../../lib/format";

export function QuotaBar({ storage }: { storage: StorageAnswer }) {
  const { limit_bytes: limit, used_share: share, name } = storage.quota;
  if (!limit) return <p className="hint">No storage quota (TANKODROM_QUOTA_BYTES is 0): uploads are never refused.</p>;
  const pct = Math.min(100, (share ?? 0) * 100);
  return (
    <div className="quota" data-quota-share={share ?? 0}>
      <p>
        {name.charAt(0).toUpperCase() + name.slice(1)}: <strong>{formatBytes(storage.total_bytes)}</strong> of {formatBytes(limit)} used (
        {formatPercent(share)}){(share ?? 0) >= 1 && " — new uploads and tank streams are refused (507)"}
      </p>
      <div className="quota-bar" role="meter" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(pct)}>
        <span style={{ width: `${pct}%` }} className={(share ?? 0) >= 0.9 ? "full" : ""} />
      </div>
    </div>
  );
}
