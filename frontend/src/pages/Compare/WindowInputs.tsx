import { useEffect, useState } from "react";

/** The compared window: seconds from each test's start (align=start) or unix seconds (absolute). */
export function WindowInputs({
  align,
  from,
  to,
  onChange,
}: {
  align: string;
  from: string;
  to: string;
  onChange: (from: string, to: string) => void;
}) {
  const [draft, setDraft] = useState({ from, to });
  useEffect(() => setDraft({ from, to }), [from, to]);
  const unit = align === "start" ? "s from start" : "unix s";
  const clean = (v: string) => (/^\d+$/.test(v.trim()) ? v.trim() : "");
  return (
    <form
      className="compare-window"
      onSubmit={(e) => {
        e.preventDefault();
        onChange(clean(draft.from), clean(draft.to));
      }}
    >
      {(["from", "to"] as const).map((end) => (
        <label key={end}>
          {end === "from" ? `From (${unit})` : `To (${unit}, excluded)`}
          <input
            type="text"
            inputMode="numeric"
            size={10}
            value={draft[end]}
            placeholder={end === "from" ? "start" : "end"}
            onChange={(e) => setDraft({ ...draft, [end]: e.target.value })}
          />
        </label>
      ))}
      <button type="submit">Apply</button>
    </form>
  );
}
