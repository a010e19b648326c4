/** Types of chromium.mjs (plain JavaScript, since live.watch.mjs imports it under node 20). */
export declare const CHROMIUM_ARGS: readonly string[];
