/** One headline figure of the storage page, with its label and what it counts. */

export function Tile({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <div className="chip" data-tile={label}>
      <span className="chip-value">{value}</span>
      <span className="chip-label">{label}</span>
      {hint && <span className="tile-hint hint">{hint}</span>}
    </div>
  );
}
