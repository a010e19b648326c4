/** The top bar of every page: home, API tokens and the login state (GET /api/v1/me; absent = not shown). */
import { getMe } from "../api/endpoints";
import { useApi } from "../hooks/useApi";

function csrf(): string {
  const m = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return m?.[1] ? decodeURIComponent(m[1]) : "";
}

export function Header() {
  const me = useApi("me", (signal) => getMe(signal));
  const next = encodeURIComponent(window.location.pathname + window.location.search + window.location.hash);
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
      <div className="who">
        {me.data?.authenticated ? (
          <>
            <span className="user">{me.data.username}</span>
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
