/**
 * Prints, after the run, the figures the specs measured (the `figure` fixture's "measured" annotations: chart draw
 * times, the gzipped JavaScript) and the old runner's one-line summary, beside the list reporter's own.
 */
import type { FullResult, Reporter, TestCase, TestResult } from "@playwright/test/reporter";

export default class FiguresReporter implements Reporter {
  private readonly figures: string[] = [];
  private passed = 0;
  private failed = 0;

  onTestEnd(_test: TestCase, result: TestResult): void {
    if (result.status === "passed") this.passed += 1;
    else if (result.status !== "skipped") this.failed += 1;
    for (const a of result.annotations) if (a.type === "measured" && a.description) this.figures.push(a.description);
  }

  onEnd(result: FullResult): void {
    if (this.passed + this.failed === 0) return; // `--list`, or nothing matched
    console.log("measured:");
    for (const figure of this.figures) console.log(`  ${figure}`);
    console.log(`${this.passed} passed, ${this.failed} failed (${result.status})`);
  }

  printsToStdio(): boolean {
    return true;
  }
}
