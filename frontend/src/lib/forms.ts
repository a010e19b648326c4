/** Form wiring shared by the pages' forms. */
import type { FormEvent } from "react";

/** A form's onSubmit that keeps the page (the browser's submit would reload it), then hands over to `handle`. */
export function submitted(handle: () => void): (e: FormEvent) => void {
  return (e) => {
    e.preventDefault();
    handle();
  };
}
