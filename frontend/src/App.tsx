/** Top-level router: picks the page from location.pathname (the server serves the same bundle on every page URL). */
import type { ReactElement } from "react";
import { Header } from "./components/Header";
import { useTimeZone } from "./hooks/useTimeZone";
import { routeOf, type Route } from "./lib/route";
import { TestListPage } from "./pages/TestList/TestListPage";
import { ReportPage } from "./pages/TestReport/ReportPage";
import { ComparePage } from "./pages/Compare/ComparePage";
import { ComponentPage } from "./pages/Component/ComponentPage";
import { StoragePage } from "./pages/Storage/StoragePage";
import { MembersPage } from "./pages/Project/MembersPage";
import { AuditPage } from "./pages/Project/AuditPage";
import { NotFoundPage } from "./pages/NotFound/NotFoundPage";

/** Each kind of route with the page it shows, given that route's parameters. */
const PAGES: { [K in Route["kind"]]: (route: Extract<Route, { kind: K }>) => ReactElement } = {
  list: () => <TestListPage />,
  report: ({ id }) => <ReportPage id={id} />,
  compare: ({ ids }) => <ComparePage ids={ids} />,
  component: ({ name }) => <ComponentPage name={name} />,
  storage: () => <StoragePage />,
  members: ({ slug }) => <MembersPage slug={slug} />,
  audit: ({ slug }) => <AuditPage slug={slug} />,
  notfound: () => <NotFoundPage />,
};

function pageOf(route: Route): ReactElement {
  // The table pairs each kind with its own route's shape; TypeScript cannot follow that through the lookup.
  return (PAGES[route.kind] as (route: Route) => ReactElement)(route);
}

export function App() {
  // Every page shows times in the reader's choice of zone: a switch re-renders the whole page.
  const zone = useTimeZone();
  return (
    <>
      <a className="skip" href="#content">
        Skip to content
      </a>
      <Header />
      <div id="content" data-tz={zone}>
        {pageOf(routeOf(window.location.pathname))}
      </div>
    </>
  );
}
