/**
 * What deploy/e2e.sh tells the browser tests through the environment: where the e2e stack answers, the seeding
 * user's API token, where the seeded tests are described and where screenshots go.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

export const BASE = process.env.E2E_BASE_URL ?? "http://127.0.0.1:8765";
export const TOKEN = process.env.E2E_TOKEN ?? "";
/** Relative defaults are from frontend/, where `npx playwright test` runs. */
export const SEED_FILE = process.env.E2E_SEED ?? "../var/e2e/seed.json";
export const SHOTS = process.env.E2E_SCREENSHOTS ?? "../var/screenshots";

/** The project root: deploy/e2e.sh runs from there, `npm run e2e` from frontend/. */
export function projectRoot(): string {
  for (const dir of [process.cwd(), join(process.cwd(), "..")]) {
    if (existsSync(join(dir, "manage.py"))) return dir;
  }
  throw new Error(`manage.py not found from ${process.cwd()}`);
}

/** Runs Python in the e2e stack's Django (its database comes from deploy/e2e.sh's environment). */
export function djangoShell(code: string): void {
  const root = projectRoot();
  execFileSync(join(root, ".venv", "bin", "python"), ["manage.py", "shell", "-c", code], { cwd: root, stdio: "pipe" });
}
