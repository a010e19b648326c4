/** The cases to show: "All requests" (none chosen) or any of the test's cases; the report and compare pages share it. */
export function CasePicker({
  cases,
  chosen,
  onChange,
  none,
}: {
  cases: string[];
  chosen: string[];
  onChange: (chosen: string[]) => void;
  /** Said when there are no cases to choose from. */
  none?: string;
}) {
  const toggle = (c: string) => onChange(chosen.includes(c) ? chosen.filter((x) => x !== c) : [...chosen, c]);
  return (
    <fieldset className="cases">
      <legend>Cases</legend>
      <label className="check">
        <input type="checkbox" checked={chosen.length === 0} onChange={() => onChange([])} />
        All requests
      </label>
      {cases.map((c) => (
        <label className="check" key={c}>
          <input type="checkbox" checked={chosen.includes(c)} onChange={() => toggle(c)} />
          {c}
        </label>
      ))}
      {cases.length === 0 && none && <span className="hint">{none}</span>}
    </fieldset>
  );
}
