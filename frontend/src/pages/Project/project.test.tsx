/**
 * The project components as a reader of each role sees them, rendered to HTML (react-dom/server) and queried by
 * role and text as Testing Library would: who gets which controls, and what the others are told instead.
 */
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import type { ProjectMember } from "../../api/types";
import { ProjectSwitcher } from "../../components/ProjectSwitcher";
import { parseAuditQuery, serializeAuditQuery } from "../../lib/audit";
import { BaselinePanel } from "../Component/BaselinePanel";
import { AuditTable } from "./AuditTable";
import { MembersTable } from "./MembersTable";
import { ProjectNav } from "./ProjectNav";

const MEMBERS: ProjectMember[] = [
  { username: "ann", role: "admin" },
  { username: "bob", role: "uploader" },
];
const noop = () => undefined;

function dom(html: string): { count: (selector: RegExp) => number; text: string } {
  return { count: (re) => (html.match(re) ?? []).length, text: html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ") };
}

describe("MembersTable", () => {
  it("gives an admin a role picker and a remove button per member", () => {
    const html = renderToStaticMarkup(
      <MembersTable members={MEMBERS} canManage me="ann" busy={null} onRole={noop} onRemove={noop} />,
    );
    const page = dom(html);
    expect(page.count(/<select aria-label="Role of (ann|bob)"/g)).toBe(2);
    expect(page.count(/aria-label="Remove (ann|bob)"/g)).toBe(2);
    expect(html).toMatch(/<option value="uploader" selected="">uploader<\/option>/);
    expect(page.text).toContain("ann (you)");
  });

  it("shows everyone else the roles only", () => {
    const html = renderToStaticMarkup(
      <MembersTable members={MEMBERS} canManage={false} me="bob" busy={null} onRole={noop} onRemove={noop} />,
    );
    expect(html).not.toContain("<select");
    expect(html).not.toContain("Remove");
    expect(html).toContain('data-role="admin"');
    expect(html).toContain('data-role="uploader"');
  });

  it("locks the row whose change is under way", () => {
    const html = renderToStaticMarkup(
      <MembersTable members={MEMBERS} canManage me="ann" busy="bob" onRole={noop} onRemove={noop} />,
    );
    expect(html).toMatch(/<select aria-label="Role of bob" disabled=""/);
    expect(html).not.toMatch(/<select aria-label="Role of ann" disabled=""/);
  });
});

describe("ProjectSwitcher", () => {
  const projects = [
    { slug: "default", name: "Default", role: "uploader", default_visibility: "public" },
    { slug: "team", name: "Team", role: "admin", default_visibility: "project" },
  ];

  it("lists the reader's projects with the role held, and every project", () => {
    const html = renderToStaticMarkup(<ProjectSwitcher projects={projects} chosen="team" />);
    expect(html).toContain('<option value="">All projects</option>');
    expect(html).toContain('<option value="default">Default (uploader)</option>');
    expect(html).toMatch(/<option value="team" selected="">Team \(admin\)<\/option>/);
    expect(html).toContain('href="/projects/team/members"');
  });

  it("has no members link for every project, and nothing at all without projects", () => {
    expect(renderToStaticMarkup(<ProjectSwitcher projects={projects} chosen="" />)).not.toContain("/members");
    expect(renderToStaticMarkup(<ProjectSwitcher projects={[]} chosen="" />)).toBe("");
  });
});

describe("ProjectNav", () => {
  it("links the audit log for admins only", () => {
    const admin = { slug: "team", name: "Team", role: "admin", default_visibility: "public" };
    expect(renderToStaticMarkup(<ProjectNav slug="team" project={admin} page="members" />)).toContain(
      'href="/projects/team/audit"',
    );
    const viewer = { ...admin, role: "viewer" };
    const html = renderToStaticMarkup(<ProjectNav slug="team" project={viewer} page="members" />);
    expect(html).not.toContain("/audit");
    expect(html).toContain('data-role="viewer"');
  });
});

describe("BaselinePanel", () => {
  const tests = [{ id: 7, name: "ramp", version: "1.0", ts: 1_700_000_000, status: "ready", url: "/7" }];

  it("offers the baseline to a maintainer", () => {
    const html = renderToStaticMarkup(
      <BaselinePanel component="api" project="team" baseline={null} tests={tests} canEdit onChanged={noop} />,
    );
    expect(html).toContain("Mark as baseline");
    expect(html).not.toContain("data-refused");
  });

  it("tells anyone else the role needed and the one held, without the form", () => {
    const refused = "This needs the maintainer role in project 'team'; you are uploader.";
    const html = renderToStaticMarkup(
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
    expect(html).not.toContain("Mark as baseline");
    expect(dom(html).text).toContain("you are uploader");
  });
});

describe("the audit log", () => {
  it("shows each event with who did it, filterable by a click", () => {
    const html = renderToStaticMarkup(
      <AuditTable
        events={[
          { at: "2026-11-27T10:00:00Z", actor: "ann", action: "member.role", target: "bob", details: { role: "admin", before: "viewer" } },
          { at: "2026-11-27T09:00:00Z", actor: null, action: "member.sign_on", target: "carol", details: {} },
        ]}
        onActor={noop}
        onAction={noop}
      />,
    );
    const page = dom(html);
    expect(page.text).toContain("role: admin · before: viewer");
    expect(page.text).toContain("system");
    expect(page.count(/title="Only member\.(role|sign_on)"/g)).toBe(2);
  });

  it("keeps its filters in the query string", () => {
    expect(parseAuditQuery("?action=member.add&actor=%20ann%20")).toEqual({ action: "member.add", actor: "ann" });
    expect(serializeAuditQuery({ action: "", actor: "ann" })).toBe("actor=ann");
    expect(serializeAuditQuery({ action: "", actor: " " })).toBe("");
  });
});
