import type { ReactNode } from "react";

/** A header row: `first` (a label column, or an empty corner), then one numeric column per test, `#id`. */
export function TestColumns({ first, tests }: { first: ReactNode; tests: number[] }) {
  return (
    <thead>
      <tr>
        {first}
        {tests.map((t) => (
          <th scope="col" className="num" key={t}>
            #{t}
          </th>
        ))}
      </tr>
    </thead>
  );
}
