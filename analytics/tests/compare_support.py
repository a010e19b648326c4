"""What every comparison answer must hold, for the tests of analytics (QuantileComparison.as_json) and of the API
(the compare answer and its per_case and by_load tables): the figures and the words beside them agree."""

from __future__ import annotations

from typing import Any

from analytics.compare_summary import WORDS


def check_levels(part: dict[str, Any]) -> None:
    """Per level and test: the judged change lies in its interval; a `worse`/`better` level has its judged interval
    and its whole-test difference on that side of zero; a level not judged (null) says why."""
    for level, verdicts in part["verdict"].items():
        for i, verdict in enumerate(verdicts):
            if i == 0:
                assert verdict is None, (level, "the baseline has no verdict")
                continue
            change, interval = part["change_pct"][level][i], part["change_interval_pct"][level][i]
            diff_ms, diff_pct = part["diff_ms"][level][i], part["diff_pct"][level][i]
            if interval is not None:
                assert change is not None and interval[0] <= change <= interval[1], (level, i, change, interval)
            if verdict in ("worse", "better"):
                sign = 1 if verdict == "worse" else -1
                assert interval is not None, (level, i)
                beyond = interval[0] > 0 if verdict == "worse" else interval[1] < 0
                assert beyond, (level, i, verdict, interval)
                assert diff_ms is not None and sign * diff_ms > 0, (level, i, verdict, diff_ms)
                assert diff_pct is None or sign * diff_pct > 0, (level, i, verdict, diff_pct)
            if verdict is None and part["quantiles_ms"][level][i] is not None:
                assert part["verdict_notes"][level][i], (level, i, "not judged without a reason")


def check_codes(answer: dict[str, Any]) -> None:
    """Each code's share interval contains its difference; `worse`/`better` never against the difference's sign."""
    for kind in ("http", "net"):
        for code, verdicts in answer["code_verdicts"][kind].items():
            for i, verdict in enumerate(verdicts[1:], start=1):
                diff, interval = answer["code_share_diff"][kind][code][i], answer["code_share_interval"][kind][code][i]
                if interval is not None:
                    assert diff is not None and interval[0] <= diff <= interval[1], (kind, code, i)
                if verdict in ("worse", "better"):
                    assert interval is not None and (interval[0] > 0 or interval[1] < 0), (kind, code, i)
                    assert (diff > 0) == (interval[0] > 0), (kind, code, i)


def check_summary(lines: list[str], part: dict[str, Any]) -> None:
    """The one-line summaries name every level under its verdict's word, and nothing else there."""
    levels = list(part["verdict"])
    for i, line in enumerate(lines, start=1):
        if part["count"][0] == 0 or part["count"][i] == 0:
            assert "nothing to compare" in line
            continue
        clauses = line.rstrip(".").split("; ")
        for level in levels:
            verdict = part["verdict"][level][i]
            word = WORDS[verdict]
            assert any(_names(c, level, levels) for c in clauses if word in c), (line, level, verdict)
            others = [w for v, w in WORDS.items() if v != verdict]
            assert not any(_names(c, level, levels) for c in clauses if any(w in c for w in others)), (line, level)


def _names(clause: str, level: str, levels: list[str]) -> bool:
    """Does the clause name the level, alone or inside a span "qA–qB"?"""
    order = [float(x) for x in levels]
    for token in clause.replace(",", " ").split():
        if not token.startswith("q"):
            continue
        first, _, last = token[1:].partition("–")
        try:
            low, high = float(first), float(last.removeprefix("q") or first)
        except ValueError:
            continue
        if low <= float(level) <= high and float(level) in order:
            return True
    return False
