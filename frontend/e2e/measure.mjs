/** Measurements the browser tests print: the gzipped size of the built JavaScript. */
import { readdirSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

export function bundleSizes(distUrl) {
  const dir = new URL("assets/", distUrl);
  let gzipTotal = 0;
  let files = 0;
  for (const name of readdirSync(dir)) {
    if (!name.endsWith(".js")) continue;
    gzipTotal += gzipSync(readFileSync(new URL(name, dir)), { level: 9 }).length;
    files += 1;
  }
  return { gzipTotal, files };
}
