/**
 * Test support for component tests (jsdom): renders a tree inside its own query cache, as main.tsx mounts the app,
 * and unmounts it after each test. The API layer (api/endpoints.ts) is mocked by each test file, so the cache only
 * ever holds the fixed answers the test gave.
 */
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { cleanup, render, screen, waitFor, type RenderResult } from "@testing-library/react";
import type { ReactElement } from "react";
import { afterEach, expect } from "vitest";

// Vitest runs without globals, so Testing Library cannot register its own cleanup.
afterEach(cleanup);

export function renderWithApi(ui: ReactElement): RenderResult {
  // The app's defaults that change what a reader sees: an error shows at once (no retries).
  const client = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } });
  return render(<QueryClientProvider client={client}>{ui}</QueryClientProvider>);
}

/** The names of the charts drawn, once `count` of them are (each chart's answer comes on its own). */
export async function chartNames(count: number): Promise<(string | null)[]> {
  await waitFor(() => expect(screen.queryAllByRole("figure")).toHaveLength(count));
  return screen.getAllByRole("figure").map((f) => f.getAttribute("aria-label"));
}
