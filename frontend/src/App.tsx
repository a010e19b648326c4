/** Top-level router: picks the page from location.pathname (the server serves the same bundle on every page URL). */
import { routeOf } from "./lib/route";

export function App() {
  const route = routeOf(window.location.pathname);
  return <div>{route.kind}</div>;
}
