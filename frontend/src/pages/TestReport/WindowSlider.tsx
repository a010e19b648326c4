import { formatClock } from "../../lib/format";

/** One end of the window: a slider over the test's seconds, named as Overload's hash names it. */
export function WindowSlider({
  label,
  name,
  bounds,
  value,
  onChange,
}: {
  label: string;
  name: string;
  bounds: { first: number; last: number };
  value: number;
  onChange: (second: number) => void;
}) {
  return (
    <label>
      <span className="sr-only">{label}</span>
      <input
        type="range"
        name={name}
        min={bounds.first}
        max={bounds.last}
        step={1}
        value={value}
        aria-valuetext={formatClock(value)}
        onChange={(e) => onChange(Number(e.target.value))}
      />
    </label>
  );
}
