/** Top-level router: picks the page from location.pathname (the server serves the same bundle on every page URL). */
import { Header } from "./components/Header";
import { useTimeZone } from "./hooks/useTimeZone";
import { routeOf } from "./lib/route";
import { TestListPage } from "./pages/TestList/TestListPage";
import { ReportPage } from "./pages/TestReport/ReportPage";
import { ComparePage } from "./pages/Compare/ComparePage";
import { ComponentPage } from "./pages/Component/ComponentPage";
import { StoragePage } from "./pages/Storage/StoragePage";
import { MembersPage } from "./pages/Project/MembersPage";
import { AuditPage } from "./pages/Project/AuditPage";

function Page() {
  const route = routeOf(window.location.pathname);
  switch (route.kind) {
    case "list":
      return <TestListPage />;
    case "report":
      return <ReportPage id={route.id} />;
    case "compare":
      return <ComparePage ids={route.ids} />;
    case "component":
      return <ComponentPage name={route.name} />;
    case "storage":
      return <StoragePage />;
    case "members":
      return <MembersPage slug={route.slug} />;
    case "audit":
      return <AuditPage slug={route.slug} />;
    case "notfound":
      return (
        <main className="page" data-page="not-found">
          <h1>Page not found</h1>
          <p>
            Reports live at <code>/&lt;id&gt;</code>, comparisons at <code>/compare/&lt;a&gt;/&lt;b&gt;</code>.{" "}
            <a href="/">Back to the test list</a>.
          </p>
        </main>
      );
  }
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
        <Page />
      </div>
    </>
  );
}
