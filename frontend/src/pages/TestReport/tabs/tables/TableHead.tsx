/** A table card's heading with its CSV button beside it. */

export function TableHead({ title, csv }: { title: React.ReactNode; csv: React.ReactNode }) {
  return (
    <div className="table-head">
      <h2>{title}</h2>
      {csv}
    </div>
  );
}
