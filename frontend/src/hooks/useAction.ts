/**
 * A form's write: whether it is under way (its button waits) and what went wrong, as text for the form's alert.
 * `run` resolves true when the write went through, so the form goes on (clears its inputs, says "Saved").
 */
import { useCallback, useState } from "react";
import { errorText } from "../lib/errorText";

export interface Action {
  busy: boolean;
  error: string | null;
  /** For what the form itself refuses before asking the server. */
  setError: (error: string | null) => void;
  run: (write: () => Promise<unknown>) => Promise<boolean>;
}

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = useCallback(async (write: () => Promise<unknown>) => {
    setBusy(true);
    setError(null);
    try {
      await write();
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, run };
}
