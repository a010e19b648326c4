/** The size of what a reader downloads: the built JavaScript, gzipped, stays under 1.5 MB. */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { test } from "./support/fixtures";
import { bundleSizes } from "./support/measure";

const LIMIT_BYTES = 1.5 * 1024 * 1024;

test("the gzipped JavaScript is under 1.5 MB", async ({ figure }) => {
  const sizes = bundleSizes(fileURLToPath(new URL("../dist/", import.meta.url)));
  figure("gzipped JavaScript", `${(sizes.gzipTotal / 1024).toFixed(1)} KiB in ${sizes.files} files (limit 1536 KiB)`);
  figure("js_gzip_bytes", sizes.gzipTotal);
  assert.ok(sizes.gzipTotal <= LIMIT_BYTES, `the gzipped JavaScript is ${sizes.gzipTotal} bytes, over 1.5 MB`);
});
