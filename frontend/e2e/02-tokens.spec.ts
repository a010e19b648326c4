/**
 * Browser spec of the `/tokens` page (server-rendered by backend/accounts, no SPA): log in through the login
 * page, create a named token (shown once), check it works against the API, rename it, revoke it (the API then
 * refuses it), log out. The user is made with manage.py in the e2e stack's database (the environment of
 * deploy/e2e.sh), with a password, since `issue_token` users have none.
 */
import assert from "node:assert/strict";
import type { Locator, Page } from "@playwright/test";
import { djangoShell } from "./support/env";
import { test } from "./support/fixtures";

const USERNAME = "e2e-tokens";
const PASSWORD = "e2e-tokens-Pa55word-not-secret";

function ensureUser(): void {
  const code = [
    "from django.contrib.auth.models import User",
    `u, _ = User.objects.get_or_create(username=${JSON.stringify(USERNAME)})`,
    `u.set_password(${JSON.stringify(PASSWORD)})`,
    "u.is_active = True",
    "u.save()",
  ].join("; ");
  djangoShell(code);
}

async function whoAmI(base: string, token: string): Promise<{ status: number; username: string | null }> {
  const res = await fetch(`${base}/api/v1/me`, { headers: { Authorization: `Token ${token}` } });
  const body = (await res.json()) as { username?: string };
  return { status: res.status, username: res.ok ? (body.username ?? null) : null };
}

function rowOf(page: Page, name: string): Locator {
  return page.locator("table.tokens tbody tr", { has: page.locator(`input[name="name"][value="${name}"]`) });
}

test("tokens page: log in, create (shown once), use, rename, revoke, log out", async ({ page, base, shots }) => {
  ensureUser();
  await page.goto(`${base}/tokens`);
  assert.match(new URL(page.url()).pathname, /^\/login$/, "an anonymous visitor is sent to the login page");
  await page.getByLabel("Username").fill(USERNAME);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.waitForURL(`${base}/tokens`);
  await page.screenshot({ path: `${shots}/tokens-before.png`, fullPage: true });

  const name = `e2e tank ${Date.now()}`;
  await page.getByLabel("Name", { exact: true }).fill(name);
  await page.getByRole("button", { name: "Create token" }).click();
  const shown = page.getByTestId("new-token");
  await shown.waitFor();
  const raw = await shown.inputValue();
  assert.match(raw, /^tdm_[\w-]{30,}$/, "the new token is shown in full");
  await page.screenshot({ path: `${shots}/tokens-created.png`, fullPage: true });
  assert.deepEqual(await whoAmI(base, raw), { status: 200, username: USERNAME }, "the token works at once");

  // Shown once: the page as loaded again lists the token by its prefix only.
  await page.goto(`${base}/tokens`);
  assert.ok(!(await page.content()).includes(raw), "the token is not shown a second time");
  await rowOf(page, name).waitFor();
  assert.match((await rowOf(page, name).textContent()) ?? "", new RegExp(`${raw.slice(0, 10)}…[\\s\\S]*active`));

  const renamed = `${name} renamed`;
  await rowOf(page, name).locator('input[name="name"]').fill(renamed);
  await rowOf(page, name).getByRole("button", { name: "Rename" }).click();
  await rowOf(page, renamed).waitFor();

  await rowOf(page, renamed).getByRole("button", { name: "Revoke" }).click();
  await page.waitForFunction(
    (prefix) =>
      [...document.querySelectorAll("table.tokens tbody tr.revoked")].some((tr) => tr.textContent?.includes(prefix)),
    raw.slice(0, 10),
  );
  assert.equal((await whoAmI(base, raw)).status, 401, "a revoked token is refused");
  await page.screenshot({ path: `${shots}/tokens-revoked.png`, fullPage: true });

  await page.getByRole("button", { name: /^Log out/ }).click();
  await page.getByRole("heading", { name: "Logged out" }).waitFor();
  await page.goto(`${base}/tokens`);
  assert.match(new URL(page.url()).pathname, /^\/login$/, "after logging out the page needs a login again");
});
