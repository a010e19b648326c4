/**
 * Browser spec of single sign-on. deploy/e2e.sh starts the local OpenID provider (deploy/oidc-dev, panva's
 * oidc-provider), points the e2e stack's OpenID Connect settings at it and passes its one account here as
 * E2E_OIDC_LOGIN / E2E_OIDC_PASSWORD / E2E_OIDC_LABEL. The spec signs in as a person would: the login page's
 * "Sign in with" button, the provider's own login and consent pages, back to Tankodrom signed in (an account made
 * on the spot); then logs out at both ends through the provider's own confirmation page. Screenshots of the login
 * page and of the provider's page at each width.
 */
import assert from "node:assert/strict";
import type { Page } from "@playwright/test";
import { atWidths, BOTH, test } from "./support/fixtures";

const LOGIN = process.env.E2E_OIDC_LOGIN ?? "";
const PASSWORD = process.env.E2E_OIDC_PASSWORD ?? "";
const LABEL = process.env.E2E_OIDC_LABEL ?? "";

async function me(page: Page): Promise<{ authenticated: boolean; username?: string }> {
  return page.evaluate(async () => (await (await fetch("/api/v1/me", { credentials: "same-origin" })).json()) as { authenticated: boolean; username?: string });
}

atWidths(BOTH, (width) =>
  test(`sign in through the OpenID provider's own page, log out at both ends @${width}`, async ({ page, base, shots }) => {
    test.skip(!LOGIN, "no OpenID provider (E2E_OIDC_LOGIN)");
    await page.goto(`${base}/login?next=/`);
    const button = page.getByRole("link", { name: `Sign in with ${LABEL}` });
    await button.waitFor();
    await page.screenshot({ path: `${shots}/sso-login-${width}.png`, fullPage: true });
    await button.click();

    // The provider's pages, not ours.
    await page.waitForURL((url) => url.origin !== new URL(base).origin && url.pathname.startsWith("/interaction/"));
    await page.getByRole("heading", { name: "Sign in to the dev provider" }).waitFor();
    await page.fill("#login", LOGIN);
    await page.fill("#password", PASSWORD);
    await page.screenshot({ path: `${shots}/sso-provider-${width}.png`, fullPage: true });
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Allow" }).click();

    await page.waitForURL(`${base}/`);
    const signed = await me(page);
    assert.equal(signed.authenticated, true);
    assert.equal(signed.username, LOGIN);
    if (width >= 600) await page.locator("header .user", { hasText: LOGIN }).waitFor(); // hidden on a phone

    await page.getByRole("button", { name: /^Log out/ }).click();
    await page.getByRole("button", { name: "Yes, sign me out" }).click();
    await page.getByRole("heading", { name: "Logged out" }).waitFor();
    assert.equal(new URL(page.url()).pathname, "/sso/logged-out");
    assert.equal((await me(page)).authenticated, false);
  }),
);
