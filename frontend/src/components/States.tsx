/** Loading, error and empty states, the same everywhere so users learn them once. */
import type { ApiError } from "../api/client";

export function Loading({ what }: { what: string }) {
  return (
    <div className="state loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> Loading {what}…
    </div>
  );
}

export function ErrorBox({ error, what }: { error: ApiError | Error; what: string }) {
  const status = "status" in error && typeof error.status === "number" && error.status > 0 ? ` (${error.status})` : "";
  return (
    <div className="state error" role="alert">
      Could not load {what}
      {status}: {error.message}
    </div>
  );
}

export function Empty({ children }: { children: React.ReactNode }) {
  return <div className="state empty">{children}</div>;
}
