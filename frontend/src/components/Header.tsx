/**
 * The top bar of every page: home, API tokens, docs, the project switcher, the time zone switch and the login state
 * (GET /api/v1/me; absent = not shown). The server-rendered pages (login, tokens) carry the same links.
 */
import { getMe } from "../api/endpoints";
import { useApi } from "../hooks/useApi";
import { useProjects } from "../hooks/useProjects";
import { useTimeZone } from "../hooks/useTimeZone";
import { offsetLabel, setTimeZoneMode } from "../lib/timeZone";
import { ProjectSwitcher } from "./ProjectSwitcher";

function csrf(): string {
  const m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return m?.[1] ? decodeURIComponent(m[1]) : "";
}

export function Header() {
  const me = useApi(["me"], (signal) => getMe(signal));
  const zone = useTimeZone();
  const projects = useProjects();
  const next = encodeURIComponent(window.location.pathname + window.location.search + window.location.hash);
  const local = offsetLabel(Date.now());
  return (
    <header className="topbar">
      <nav aria-label="Main">
        <a className="brand" href="/">
          Tankodrom
        </a>
        <a href="/">Tests</a>
        <a href="/tokens">API tokens</a>
        <a href="/api/docs/">API docs</a>
      </nav>
      {projects.list && <ProjectSwitcher projects={projects.list} chosen={projects.chosen} />}
      <div className="who">
        <button
          type="button"
          className="link tz"
          data-tz={zone}
          title="Times on every page and chart: your local time or UTC"
          aria-label={`Times shown in ${zone === "utc" ? "UTC" : `local time (${local})`}; switch`}
          onClick={() => setTimeZoneMode(zone === "utc" ? "local" : "utc")}
        >
          {zone === "utc" ? "UTC" : `Local (${local})`}
        </button>
        {me.data?.authenticated ? (
          <>
            <span className="user">{me.data.username}</span>
            {me.data.is_staff && <a href="/storage">Storage</a>}
            {me.data.is_staff && <a href="/admin/">Admin</a>}
            <form method="post" action="/logout" className="inline">
              <input type="hidden" name="csrfmiddlewaretoken" value={csrf()} />
              <button type="submit" className="link">
                Log out
              </button>
            </form>
          </>
        ) : me.data ? (
          <a href={`/login?next=${next}`}>Log in</a>
        ) : null}
      </div>
    </header>
  );
}
