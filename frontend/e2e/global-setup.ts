/**
 * Seeds the e2e stack once before the specs (support/seed.ts) and writes what it made to E2E_SEED. A seed file
 * that is already there is used as it is: deploy/e2e.sh removes the previous run's before starting, so a run by
 * hand against a stack left running (E2E_KEEP=1) does not seed it twice.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { SEED_FILE } from "./support/env";
import { seedStack } from "./support/seed";

export default async function globalSetup(): Promise<void> {
  if (existsSync(SEED_FILE)) return;
  mkdirSync(dirname(SEED_FILE), { recursive: true });
  const seeded = await seedStack(dirname(SEED_FILE));
  writeFileSync(SEED_FILE, JSON.stringify(seeded, null, 2));
}
