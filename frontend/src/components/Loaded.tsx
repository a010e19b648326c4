/** An answer's content once it came; until then that it loads, or what went wrong, as every page says it. */
import type { ReactNode } from "react";
import type { ApiError } from "../api/client";
import { ErrorBox, Loading } from "./States";

interface LoadedProps<T> {
  answer: { data: T | null; error: ApiError | null };
  /** What loads, as the states say it: "the dashboard". */
  what: string;
  children: (data: T) => ReactNode;
}

export function Loaded<T>({ answer, what, children }: LoadedProps<T>) {
  if (answer.error) return <ErrorBox error={answer.error} what={what} />;
  if (answer.data === null) return <Loading what={what} />;
  return <>{children(answer.data)}</>;
}
