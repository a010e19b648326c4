/** Measurements the browser tests report: the gzipped size of the built JavaScript. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

export function bundleSizes(distDir: string): { gzipTotal: number; files: number } {
  const dir = join(distDir, "assets");
  let gzipTotal = 0;
  let files = 0;
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".js")) continue;
    gzipTotal += gzipSync(readFileSync(join(dir, name)), { level: 9 }).length;
    files += 1;
  }
  return { gzipTotal, files };
}
