"""A comparison in one plain line per test: "#17743 is slower than #17742 at q90–q99 by 30–45 %; the same at
q50–q85; q100 not judged."

Made from the verdicts and the figures they judge (analytics.compare: the typical change of a stretch of seconds,
`change_pct`), formatted by analytics.definitions, so the line never says what the table beside it does not: a
level named slower is `worse` there, its figure is the one shown beside that verdict.
"""

from __future__ import annotations

from collections.abc import Sequence

from analytics.compare import CodeComparison, QuantileComparison, Verdict
from analytics.definitions import CodeKind, code_name, format_count, format_percent, is_failing_code
from analytics.quantiles import level_key

# What a verdict says of the compared test, in the line.
WORDS: dict[Verdict | None, str] = {"worse": "slower", "better": "faster", "same": "the same", None: "not judged"}
MAX_CODES_NAMED = 2


def _runs(levels: Sequence[float], verdicts: Sequence[Verdict | None]) -> list[tuple[Verdict | None, list[int]]]:
    """Consecutive levels with one verdict: [(verdict, [level indexes])], in level order."""
    out: list[tuple[Verdict | None, list[int]]] = []
    for j in range(len(levels)):
        if out and out[-1][0] == verdicts[j]:
            out[-1][1].append(j)
        else:
            out.append((verdicts[j], [j]))
    return out


def _span(levels: Sequence[float], indexes: Sequence[int]) -> str:
    first, last = f"q{level_key(levels[indexes[0]])}", f"q{level_key(levels[indexes[-1]])}"
    return first if first == last else f"{first}–{last}"


def _by(changes: Sequence[float]) -> str:
    sizes = sorted(abs(c) for c in changes)
    low, high = format_count(sizes[0]), format_count(sizes[-1])
    return f"by {low} %" if low == high else f"by {low}–{high} %"


def quantiles_line(quantiles: QuantileComparison, test: int, labels: Sequence[str]) -> str:
    """The line for test `test` (1…) against the baseline: each verdict's levels, slower/faster ones with the
    size of the judged change."""
    levels, verdicts = quantiles.levels, quantiles.verdict[test]
    if quantiles.counts[test] == 0 or quantiles.counts[0] == 0:
        return f"{labels[test]} against {labels[0]}: nothing to compare (a test has no responses)."
    parts: dict[Verdict | None, list[str]] = {}
    sizes: dict[Verdict | None, list[float]] = {}
    for verdict, indexes in _runs(levels, verdicts):
        parts.setdefault(verdict, []).append(_span(levels, indexes))
        sizes.setdefault(verdict, []).extend(
            change for j in indexes if (change := quantiles.change_pct[test][j]) is not None
        )
    clauses: list[str] = []
    for verdict in ("worse", "better"):
        if verdict in parts:
            clauses.append(f"{WORDS[verdict]} at {', '.join(parts[verdict])} {_by(sizes[verdict])}")
    if "same" in parts:
        clauses.append(f"the same at {', '.join(parts['same'])}")
    if None in parts:
        clauses.append(f"{', '.join(parts[None])} not judged")
    head = f"{labels[test]} against {labels[0]}: "
    if "worse" in parts or "better" in parts:
        head = f"{labels[test]} is "
        clauses[0] = f"{clauses[0].replace(' at ', f' than {labels[0]} at ', 1)}"
    return head + "; ".join(clauses) + "."


def codes_clause(codes: CodeComparison, kind: CodeKind, test: int) -> str | None:
    """The failing codes whose share grew beyond noise (at most two, the largest growth first), with both shares."""
    grown = [
        (float(diff), code)
        for code, verdicts in codes.verdict.items()
        if verdicts[test] == "worse"
        and is_failing_code(kind, int(code))
        and (diff := codes.share_diff[code][test]) is not None
    ]
    if not grown:
        return None
    grown.sort(reverse=True)
    named = [
        f"{'HTTP' if kind == 'http' else 'net'} {code} ({code_name(kind, int(code))}) "
        f"{format_percent(codes.share[code][0])} → {format_percent(codes.share[code][test])}"
        for _, code in grown[:MAX_CODES_NAMED]
    ]
    return "more " + ", ".join(named)


def summary_lines(
    labels: Sequence[str], quantiles: QuantileComparison, http: CodeComparison, net: CodeComparison
) -> list[str]:
    """One line per compared test (labels[1:]) against the first."""
    lines = []
    for test in range(1, len(labels)):
        line = quantiles_line(quantiles, test, labels)
        codes = [c for c in (codes_clause(http, "http", test), codes_clause(net, "net", test)) if c]
        if codes:
            line = line.removesuffix(".") + "; " + "; ".join(codes) + "."
        lines.append(line)
    return lines
