/** Deletes a test (DELETE /tests/<id>/) after the reader confirms, then goes back to the list. */
import { useState } from "react";
import { deleteTest } from "../../../api/endpoints";
import type { TestMeta } from "../../../api/types";
import { errorText } from "../../../lib/errorText";

export function DeleteTestButton({ test }: { test: TestMeta }) {
  const [error, setError] = useState<string | null>(null);
  const remove = () => {
    if (!window.confirm(`Delete test #${test.id} and all its data? This cannot be undone.`)) return;
    deleteTest(test.id).then(
      () => window.location.assign("/"),
      (e: unknown) => setError(errorText(e)),
    );
  };
  return (
    <>
      <button type="button" className="danger" onClick={remove}>
        Delete
      </button>
      {error && (
        <span className="state error inline" role="alert">
          Not deleted: {error}
        </span>
      )}
    </>
  );
}
