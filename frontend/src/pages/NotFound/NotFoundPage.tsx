/** Any path no page answers: where the pages live, and the way back to the list. */
export function NotFoundPage() {
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
