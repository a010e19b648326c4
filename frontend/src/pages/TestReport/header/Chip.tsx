/** One summary figure of the report header, with its label; `tone` colours a figure that is good or bad news. */

export function Chip({ label, value, tone }: { label: string; value: string; tone?: "good" | "bad" }) {
  return (
    <div className={`chip ${tone ?? ""}`} data-chip={label}>
      <span className="chip-value">{value}</span>
      <span className="chip-label">{label}</span>
    </div>
  );
}
