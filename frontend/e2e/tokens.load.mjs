/**
 * Loads tokens.spec.ts for run.mjs: Node 20 cannot import TypeScript, so the spec is transpiled with the
 * project's own TypeScript (types are checked by `npm run typecheck`, not here) and imported from memory.
 * The spec imports only node: built-ins and types, which is what a module loaded this way can import.
 */
import { readFileSync } from "node:fs";
import ts from "typescript";

const source = readFileSync(new URL("./tokens.spec.ts", import.meta.url), "utf8");
const { outputText } = ts.transpileModule(source, {
  compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
});
const module = await import(`data:text/javascript;base64,${Buffer.from(outputText).toString("base64")}`);

export const tokenSpecs = module.specs;
