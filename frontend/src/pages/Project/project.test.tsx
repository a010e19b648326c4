// @vitest-environment jsdom
/**
 * The project components as a reader of each role sees them, rendered in jsdom and queried by role and text: who
 * gets which controls, and what the others are told instead.
 */
import { render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { ProjectMember } from "../../api/types";
import { ProjectSwitcher } from "../../components/ProjectSwitcher";
import { parseAuditQuery, serializeAuditQuery } from "../../lib/audit";
import "../../test/renderWithApi"; // unmounts each test's tree
import { BaselinePanel } from "../Component/BaselinePanel";
import { AuditTable } from "./AuditTable";
import { MembersTable } from "./MembersTable";
import { ProjectNav } from "./ProjectNav";

const MEMBERS: ProjectMember[] = [
  { username: "ann", role: "admin" },
  { username: "bob", role: "uploader" },
];
const noop = () => undefined;

function roleOf(username: string): HTMLSelectElement {
  return screen.getByRole("combobox", { name: `Role of ${username}` }) as HTMLSelectElement;
}

describe("MembersTable", () => {
  it("gives an admin a role picker and a remove button per member", async () => {
    const onRole = vi.fn();
    const onRemove = vi.fn();
    render(<MembersTable members={MEMBERS} canManage me="ann" busy={null} onRole={onRole} onRemove={onRemove} />);
    expect(roleOf("bob").value).toBe("uploader");
    expect(roleOf("ann").value).toBe("admin");
    expect(screen.getByRole("rowheader", { name: /^ann/ }).textContent).toBe("ann (you)");
    await userEvent.selectOptions(roleOf("bob"), "maintainer");
    expect(onRole).toHaveBeenCalledWith("bob", "maintainer");
    await userEvent.click(screen.getByRole("button", { name: "Remove bob" }));
    expect(onRemove).toHaveBeenCalledWith("bob");
    expect(screen.getByRole("button", { name: "Remove ann" })).toBeTruthy();
  });

  it("shows everyone else the roles only", () => {
    render(<MembersTable members={MEMBERS} canManage={false} me="bob" busy={null} onRole={noop} onRemove={noop} />);
    expect(screen.queryByRole("combobox")).toBeNull();
    expect(screen.queryByRole("button")).toBeNull();
    const you = screen.getByRole("rowheader", { name: /^bob/ });
    expect(you.textContent).toBe("bob (you)");
    const bob = you.closest("tr") as HTMLElement;
    expect(within(bob).getByRole("cell").textContent).toBe("uploader");
    expect(screen.getAllByRole("columnheader").map((h) => h.textContent)).toEqual(["Member", "Role"]);
  });

  it("locks the row whose change is under way", () => {
    render(<MembersTable members={MEMBERS} canManage me="ann" busy="bob" onRole={noop} onRemove={noop} />);
    expect(roleOf("bob").disabled).toBe(true);
    expect((screen.getByRole("button", { name: "Remove bob" }) as HTMLButtonElement).disabled).toBe(true);
    expect(roleOf("ann").disabled).toBe(false);
  });
});

describe("ProjectSwitcher", () => {
  const projects = [
    { slug: "default", name: "Default", role: "uploader", default_visibility: "public" },
    { slug: "team", name: "Team", role: "admin", default_visibility: "project" },
  ];

  it("lists the reader's projects with the role held, and every project", () => {
    render(<ProjectSwitcher projects={projects} chosen="team" />);
    const select = screen.getByRole("combobox", { name: "Project" }) as HTMLSelectElement;
    expect(within(select).getAllByRole("option").map((o) => o.textContent)).toEqual([
      "All projects",
      "Default (uploader)",
      "Team (admin)",
    ]);
    expect(select.value).toBe("team");
    expect(screen.getByRole("link", { name: "Members" }).getAttribute("href")).toBe("/projects/team/members");
  });

  it("has no members link for every project, and nothing at all without projects", () => {
    render(<ProjectSwitcher projects={projects} chosen="" />);
    expect(screen.queryByRole("link")).toBeNull();
    const { container } = render(<ProjectSwitcher projects={[]} chosen="" />);
    expect(container.innerHTML).toBe("");
  });
});

describe("ProjectNav", () => {
  const admin = { slug: "team", name: "Team", role: "admin", default_visibility: "public" };

  it("links the audit log for admins", () => {
    render(<ProjectNav slug="team" project={admin} page="members" />);
    const nav = screen.getByRole("navigation", { name: "Project pages" });
    expect(within(nav).getByRole("link", { name: "Audit log" }).getAttribute("href")).toBe("/projects/team/audit");
    expect(within(nav).getByRole("link", { name: "Members" }).getAttribute("aria-current")).toBe("page");
  });

  it("shows anyone else the members page and the role held, without the audit log", () => {
    render(<ProjectNav slug="team" project={{ ...admin, role: "viewer" }} page="members" />);
    const nav = screen.getByRole("navigation", { name: "Project pages" });
    expect(within(nav).getAllByRole("link").map((a) => a.textContent)).toEqual(["Members"]);
    expect(screen.getByText("You are").textContent).toBe("You are viewer");
  });
});

describe("BaselinePanel", () => {
  const tests = [{ id: 7, name: "ramp", version: "1.0", ts: 1_700_000_000, status: "ready", url: "/7" }];

  it("offers the baseline to a maintainer", () => {
    render(<BaselinePanel component="api" project="team" baseline={null} tests={tests} canEdit onChanged={noop} />);
    expect(screen.getByRole("button", { name: "Mark as baseline" })).toBeTruthy();
    const choice = screen.getByRole("combobox", { name: "Baseline test" });
    expect(within(choice).getAllByRole("option").map((o) => o.textContent)).toEqual(["#7 ramp (1.0)"]);
  });

  it("tells anyone else the role needed and the one held, without the form", () => {
    const refused = "This needs the maintainer role in project 'team'; you are uploader.";
    render(
      <BaselinePanel
        component="api"
        project="team"
        baseline={null}
        tests={tests}
        canEdit={false}
        refused={refused}
        onChanged={noop}
      />,
    );
    expect(screen.queryByRole("button", { name: "Mark as baseline" })).toBeNull();
    expect(screen.getByText(refused)).toBeTruthy();
  });
});

describe("the audit log", () => {
  it("shows each event with who did it, filterable by a click", async () => {
    const onActor = vi.fn();
    const onAction = vi.fn();
    render(
      <AuditTable
        events={[
          { at: "2026-11-27T10:00:00Z", actor: "ann", action: "member.role", target: "bob", details: { role: "admin", before: "viewer" } },
          { at: "2026-11-27T09:00:00Z", actor: null, action: "member.sign_on", target: "carol", details: {} },
        ]}
        onActor={onActor}
        onAction={onAction}
      />,
    );
    const [, first, second] = screen.getAllByRole("row");
    expect(within(first as HTMLElement).getAllByRole("cell").slice(1).map((c) => c.textContent)).toEqual([
      "ann",
      "member.role",
      "bob",
      "role: admin · before: viewer",
    ]);
    expect(within(second as HTMLElement).getAllByRole("cell")[1]?.textContent).toBe("system");
    await userEvent.click(screen.getByRole("button", { name: "ann" }));
    expect(onActor).toHaveBeenCalledWith("ann");
    await userEvent.click(screen.getByRole("button", { name: "member.sign_on" }));
    expect(onAction).toHaveBeenCalledWith("member.sign_on");
  });

  it("keeps its filters in the query string", () => {
    expect(parseAuditQuery("?action=member.add&actor=%20ann%20")).toEqual({ action: "member.add", actor: "ann" });
    expect(serializeAuditQuery({ action: "", actor: "ann" })).toBe("actor=ann");
    expect(serializeAuditQuery({ action: "", actor: " " })).toBe("");
  });
});
