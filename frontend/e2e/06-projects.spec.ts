/**
 * Browser specs of projects and roles (issue #30), each at 1440 px and at 390 px (a phone): an admin adds a member
 * by username, changes the role and removes the member on the members page, and finds each change in the audit
 * log; a viewer sees the members read-only, is told why the audit log and the component's baseline and KPIs are not
 * his to change (the role needed and the one held), and is offered none of their buttons; the header's project
 * switcher filters the test list.
 */
import assert from "node:assert/strict";
import type { Page } from "@playwright/test";
import { djangoShell } from "./support/env";
import { atWidths, BOTH, test } from "./support/fixtures";
import { assertNoSidewaysScroll, logIn, shot } from "./support/page";
import { COMPONENT } from "./support/seed";

const PROJECT = "e2e-team";
const ADMIN = "e2e-team-admin";
const VIEWER = "e2e-team-viewer";
const PASSWORD = "e2e-team-Pa55word-not-secret";
const EXPECTED_40X = /Failed to load resource: the server responded with a status of 40[34]/;

let made = false;
/** The project with its admin, and a viewer (of it and of the default project), made once in the e2e database. */
function ensureProject(): void {
  if (made) return;
  djangoShell(
    [
      "from django.contrib.auth.models import User",
      "from backend.projects.models import Project, Role, default_project",
      "from backend.testing import grant",
      `p, _ = Project.objects.get_or_create(slug=${JSON.stringify(PROJECT)}, defaults={"name": "E2E team"})`,
      ...[ADMIN, VIEWER].flatMap((name) => [
        `u, _ = User.objects.get_or_create(username=${JSON.stringify(name)})`,
        `u.set_password(${JSON.stringify(PASSWORD)})`,
        "u.save()",
      ]),
      `grant(User.objects.get(username=${JSON.stringify(ADMIN)}), Role.ADMIN, p)`,
      `grant(User.objects.get(username=${JSON.stringify(VIEWER)}), Role.VIEWER, p)`,
      `grant(User.objects.get(username=${JSON.stringify(VIEWER)}), Role.VIEWER, default_project())`,
    ].join("\n"),
  );
  made = true;
}

async function login(page: Page, base: string, username: string, next: string): Promise<void> {
  ensureProject();
  await logIn(page, base, username, PASSWORD, next);
}

/** The page's own JSON API, as the signed-in browser sees it. */
async function apiInPage<T>(page: Page, path: string): Promise<{ status: number; body: T }> {
  return page.evaluate(async (p) => {
    const res = await fetch(p, { headers: { Accept: "application/json" } });
    return { status: res.status, body: (await res.json()) as T };
  }, path);
}

test.describe(() => {
  test.use({ allowErrors: EXPECTED_40X });

  atWidths(BOTH, (width) =>
    test(`projects, members: an admin adds a member, changes the role, removes him; the audit log shows each change @${width}`, async ({ page, base, shots }) => {
      const member = "e2e"; // the seeding token's user: any existing account
      await login(page, base, ADMIN, `/projects/${PROJECT}/members`);
      await page.waitForSelector('table[data-table="members"]');
      // The role line comes with the project's answer, which may follow the members': wait for it, then check.
      await page.getByText("You are").waitFor();
      assert.ok(await page.getByText("You are").isVisible());
      const form = page.getByRole("form", { name: "Add a member" });
      // An unknown account: the API's 404 names it, next to the form.
      await form.getByLabel("Username").fill("nobody-at-all");
      await form.getByRole("button", { name: "Add member" }).click();
      await page.getByRole("alert").filter({ hasText: "no user 'nobody-at-all'" }).waitFor();
      await form.getByLabel("Username").fill(member);
      await form.getByLabel("Role").selectOption("uploader");
      await form.getByRole("button", { name: "Add member" }).click();
      const row = page.locator(`tr[data-member="${member}"]`);
      await row.waitFor();
      assert.equal(await row.getByLabel(`Role of ${member}`).inputValue(), "uploader");
      await row.getByLabel(`Role of ${member}`).selectOption("maintainer");
      await page.getByText(`${member} is now maintainer.`).waitFor();
      const listed = await apiInPage<{ username: string; role: string }[]>(page, `/api/v1/projects/${PROJECT}/members/`);
      assert.deepEqual(
        listed.body.find((m) => m.username === member),
        { username: member, role: "maintainer" },
        "the server holds the role the page shows",
      );
      await assertNoSidewaysScroll(page, "members");
      await page.screenshot({ path: shot(shots, "project-members", width), fullPage: true });

      page.once("dialog", (d) => void d.accept());
      await row.getByRole("button", { name: `Remove ${member}` }).click();
      await row.waitFor({ state: "detached" });

      await page.getByRole("navigation", { name: "Project pages" }).getByRole("link", { name: "Audit log" }).click();
      await page.waitForSelector('table[data-table="audit"]');
      const actions = await page.$$eval('table[data-table="audit"] tbody tr', (rows) => rows.map((r) => r.getAttribute("data-action")));
      for (const action of ["member.add", "member.role", "member.remove"]) assert.ok(actions.includes(action), actions.join());
      await page.getByRole("search", { name: "Filter the audit log" }).getByLabel("Action").selectOption("member.role");
      await page.getByRole("search", { name: "Filter the audit log" }).getByRole("button", { name: "Apply" }).click();
      await page.waitForURL((u) => u.search.includes("action=member.role"));
      await page.waitForFunction(() =>
        [...document.querySelectorAll<HTMLElement>('table[data-table="audit"] tbody tr')].every((r) => r.dataset.action === "member.role"),
      );
      await assertNoSidewaysScroll(page, "audit");
      await page.screenshot({ path: shot(shots, "project-audit", width), fullPage: true });
    }),
  );

  atWidths(BOTH, (width) =>
    test(`projects, roles: a viewer reads the members, is told why he changes nothing, and is offered no such button @${width}`, async ({ page, base, shots }) => {
      await login(page, base, VIEWER, `/projects/${PROJECT}/members`);
      await page.waitForSelector('table[data-table="members"]');
      assert.equal(await page.locator('table[data-table="members"] select').count(), 0, "no role pickers");
      assert.equal(await page.getByRole("button", { name: /^Remove / }).count(), 0, "no remove buttons");
      assert.equal(await page.getByRole("form", { name: "Add a member" }).count(), 0);
      const refused = (await page.textContent('[data-refused="members"]')) ?? "";
      assert.match(refused, /needs the admin role in project 'e2e-team'; you are viewer/);
      assert.equal(await page.getByRole("link", { name: "Audit log" }).count(), 0, "the audit log is for admins");
      await page.screenshot({ path: shot(shots, "project-members-viewer", width), fullPage: true });

      await page.goto(`${base}/projects/${PROJECT}/audit`);
      assert.match((await page.textContent('[data-refused="audit"]')) ?? "", /you are viewer/);

      // The component of the seeded tests, in the default project where he is a viewer too.
      await page.goto(`${base}/component/${encodeURIComponent(COMPONENT)}?project=default`);
      await page.waitForSelector('[data-refused="baseline"]');
      assert.match((await page.textContent('[data-refused="baseline"]')) ?? "", /needs the maintainer role in project 'default'; you are viewer/);
      assert.equal(await page.getByRole("button", { name: "Mark as baseline" }).count(), 0);
      assert.equal(await page.getByRole("button", { name: /Save/ }).count(), 0, "no KPI editor");
      await assertNoSidewaysScroll(page, "component");
      await page.screenshot({ path: shot(shots, "component-viewer", width), fullPage: false });
    }),
  );
});

atWidths(BOTH, (width) =>
  test(`projects, switcher: the header's project filters the test list and is remembered @${width}`, async ({ page, base, shots }) => {
    await login(page, base, VIEWER, "/");
    await page.waitForSelector("table.tests");
    const all = await page.locator("table.tests tbody tr").count();
    assert.ok(all > 0, "the seeded tests are listed for every project");
    const asked = page.waitForRequest((r) => r.url().includes("/api/v1/tests/") && r.url().includes(`project=${PROJECT}`));
    await page.getByRole("combobox", { name: "Project" }).selectOption(PROJECT);
    await asked;
    await page.getByText("No tests match.").waitFor();
    await page.screenshot({ path: shot(shots, "list-project", width), fullPage: false });
    await page.reload();
    assert.equal(await page.getByRole("combobox", { name: "Project" }).inputValue(), PROJECT, "kept across visits");
    await page.getByText("No tests match.").waitFor();
    await page.getByRole("combobox", { name: "Project" }).selectOption("");
    await page.waitForSelector("table.tests");
    assert.equal(await page.locator("table.tests tbody tr").count(), all);
  }),
);
