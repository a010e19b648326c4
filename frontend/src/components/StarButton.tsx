/** The star of a test: toggled at once, put back (with the server's reason) when the server refuses. */
import { useState } from "react";
import { setStar } from "../api/endpoints";
import type { TestMeta } from "../api/types";
import { errorText } from "../lib/errorText";

export function StarButton({ test, big = false, name }: { test: TestMeta; big?: boolean; name: string }) {
  const [starred, setStarred] = useState(Boolean(test.starred));
  const [error, setError] = useState<string | null>(null);
  const toggle = () => {
    const next = !starred;
    setStarred(next);
    setStar(test.id, next).then(
      () => setError(null),
      (e: unknown) => {
        setStarred(!next);
        setError(errorText(e));
      },
    );
  };
  return (
    <>
      <button
        type="button"
        className={`star${big ? " big" : ""}${starred ? " on" : ""}`}
        aria-pressed={starred}
        aria-label={`${starred ? "Unstar" : "Star"} ${name}`}
        title={error ?? (starred ? "Starred" : "Star")}
        onClick={toggle}
      >
        {starred ? "★" : "☆"}
      </button>
      {error && (
        <div className="star-error" role="alert">
          {error}
        </div>
      )}
    </>
  );
}
