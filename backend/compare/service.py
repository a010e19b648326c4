"""The comparison itself: parse the request, read each test's data, judge the differences, build the JSON.

The view and the Celery task both go through here: `parse_params` (validation, 400 on bad input),
`cache_key` (the request plus each test's data version, backend/reports/source.py) and `build` (the expensive
part, run by the `analysis` queue).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlencode

import numpy as np
from django.http import QueryDict

from analytics.compare import (
    DEFAULT_LEVELS,
    LEVEL_TABLES,
    CodeComparison,
    CompareSettings,
    SparseCounts,
    compare_codes,
    compare_quantiles,
    method_text,
    time_step_s,
)
from analytics.compare_load import LoadComparison, compare_by_load, rps_per_second
from analytics.compare_summary import summary_lines
from analytics.definitions import CodeKind, code_class, code_name
from analytics.diagnosis.schedule_infer import infer_schedule
from analytics.figures_compare import by_load_figure, distribution_figure, quantiles_figure
from analytics.numbers import is_digits
from backend.clickhouse.queries import compare as queries
from backend.clickhouse.queries.selection import Selection
from backend.loadtests.models import Test
from backend.reports import source
from backend.reports.source import Source
from backend.reports.window import WindowError, cases_param, levels_param, span_params

MAX_TESTS = 10
# Long-lived, so that its threads keep their ClickHouse connections between comparisons.
_READERS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="compare-read")
# A comparison is a pure function of the data versions in its key, so it may live long; a day bounds the memory.
RESULT_TTL_S = 24 * 3600
MAX_ID = 2**63 - 1  # PostgreSQL bigint
ALIGNMENTS = ("start", "absolute")
METHOD = method_text()


@dataclass(frozen=True)
class CompareParams:
    test_ids: tuple[int, ...]
    from_s: int | None = None
    to_s: int | None = None
    cases: tuple[str, ...] = ()
    levels: tuple[float, ...] = DEFAULT_LEVELS
    align: str = "start"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> CompareParams:
        return CompareParams(
            test_ids=tuple(int(t) for t in data["test_ids"]),
            from_s=None if data.get("from_s") is None else int(data["from_s"]),
            to_s=None if data.get("to_s") is None else int(data["to_s"]),
            cases=tuple(str(c) for c in data.get("cases", ())),
            levels=tuple(float(x) for x in data.get("levels", DEFAULT_LEVELS)),
            align=str(data.get("align", "start")),
        )


def parse_params(query: QueryDict) -> CompareParams:
    """Validate `tests`, `from`, `to`, `case`, `q` and `align`; raise WindowError naming the problem.

    The window's parameters are the report's (backend/reports/window.py), but `from` and `to` are whole seconds
    (since each test's start with align=start) and the levels are judged in ascending order."""
    raw_tests = str(query.get("tests") or "")
    if not raw_tests:
        raise WindowError("tests is required: two or more test ids separated by commas, e.g. tests=17742,17743")
    ids: list[int] = []
    for part in raw_tests.split(","):
        part = part.strip()
        if not is_digits(part) or int(part) > MAX_ID:
            raise WindowError(f"tests: {part!r} is not a test id")
        ids.append(int(part))
    if len(ids) < 2:
        raise WindowError("tests: give at least two test ids to compare")
    if len(ids) > MAX_TESTS:
        raise WindowError(f"tests: at most {MAX_TESTS} tests in one comparison")
    if len(set(ids)) != len(ids):
        raise WindowError("tests: a test is listed twice")
    from_s, to_s = span_params(query, whole=True)
    levels = tuple(sorted(levels_param(query.get("q"), DEFAULT_LEVELS)))
    align = str(query.get("align") or "start")
    if align not in ALIGNMENTS:
        raise WindowError(f"align must be one of {', '.join(ALIGNMENTS)}, got {align!r}")
    return CompareParams(tuple(ids), from_s, to_s, cases_param(query), levels, align)


def cache_key(params: CompareParams, tests: Sequence[Test]) -> str:
    return source.cache_key("compare:v4", tests, json.dumps(params.to_dict(), sort_keys=True))


def page_url(params: CompareParams) -> str:
    """The shareable compare page for these parameters (view state in the query string)."""
    query: list[tuple[str, str]] = []
    if params.from_s is not None:
        query.append(("from", str(params.from_s)))
    if params.to_s is not None:
        query.append(("to", str(params.to_s)))
    query += [("case", c) for c in params.cases]
    if params.levels != DEFAULT_LEVELS:
        query.append(("q", ",".join(f"{x:g}" for x in params.levels)))
    if params.align != "start":
        query.append(("align", params.align))
    path = "/compare/" + "/".join(str(t) for t in params.test_ids)
    return path + (f"?{urlencode(query)}" if query else "")


def is_ramp(test: Test) -> bool:
    """True when the test's schedule has a `line` step (a ramp), whatever shape the tank sent it in."""
    for step in test.loadscheme or []:
        if isinstance(step, str) and step.strip().lower().startswith("line"):
            return True
        if isinstance(step, dict) and str(step.get("type", "")).lower() == "line":
            return True
    return False


def looks_like_ramp(data: SparseCounts) -> bool:
    """A test without a schedule (phout only) whose response rate climbs as a line or in steps (schedule_infer)."""
    rates = rps_per_second(data)
    if len(rates) < 10:
        return False
    seconds = np.array(sorted(rates), dtype=np.int64)
    step = time_step_s(data)
    dense = np.zeros(int((seconds[-1] - seconds[0]) // step) + 1)
    dense[(seconds - seconds[0]) // step] = [rates[int(s)] for s in seconds]
    return infer_schedule(dense).scheme.is_ramp


@dataclass
class _Loaded:
    test: Test
    start_s: int | None
    window: tuple[int | None, int | None]
    counts: queries.TestCounts | None = None
    relative: dict[str, SparseCounts] = field(default_factory=dict)


def _load(test: Test, params: CompareParams, src: Source) -> _Loaded:
    start = queries.first_second(test.pk, src.source_id)
    if params.align == "start":
        base = start or 0
        window = (
            None if params.from_s is None else base + params.from_s,
            None if params.to_s is None else base + params.to_s,
        )
    else:
        window = (params.from_s, params.to_s)
    loaded = _Loaded(test, start, window)
    if start is None:
        return loaded
    sel = Selection(test.pk, src.source_id, src.upload_id, window[0], window[1], params.cases)
    loaded.counts = queries.from_samples(sel, params.levels) if src.exact else queries.from_stream(sel)
    return loaded


def _codes_json(http: CodeComparison, net: CodeComparison) -> dict[str, Any]:
    def intervals(data: Mapping[str, Sequence[tuple[float, float] | None]]) -> dict[str, list[Any]]:
        return {code: [list(v) if v is not None else None for v in vals] for code, vals in data.items()}

    def meaning(kind: CodeKind, codes: Mapping[str, Any]) -> dict[str, dict[str, str]]:
        return {code: {"name": code_name(kind, int(code)), "class": code_class(kind, int(code))} for code in codes}

    return {
        "http_codes": http.counts,
        "net_codes": net.counts,
        "code_meaning": {"http": meaning("http", http.counts), "net": meaning("net", net.counts)},
        "code_share": {"http": http.share, "net": net.share},
        "code_share_diff": {"http": http.share_diff, "net": net.share_diff},
        "code_share_interval": {"http": intervals(http.interval), "net": intervals(net.interval)},
        "code_verdicts": {"http": http.verdict, "net": net.verdict},
    }


def _by_load_json(result: LoadComparison, n_tests: int) -> dict[str, Any]:
    bands = result.bands
    out: dict[str, Any] = {"rps": [[b.rps_low, b.rps_high] for b in bands]}
    for name in LEVEL_TABLES:
        out[name] = {}
    for k, band in enumerate(bands):
        part = band.comparison.as_json()
        for name in LEVEL_TABLES:
            for level, values in part[name].items():
                table = out[name].setdefault(level, [[None] * len(bands) for _ in range(n_tests)])
                for i in range(n_tests):
                    table[i][k] = values[i]
    return out


def build(params: CompareParams, tests: Sequence[Test], settings: CompareSettings | None = None) -> dict[str, Any]:
    """The comparison JSON for `tests` (in the order asked; the first is the baseline)."""
    # The tests' reads are independent: run them side by side (each thread has its own ClickHouse connection).
    # Read here, not on the reader threads: they talk to ClickHouse only and hold no PostgreSQL connection.
    sources = {t.pk: source.source_of(t) for t in tests}
    loaded = list(_READERS.map(lambda t: _load(t, params, sources[t.pk]), tests))
    empty = queries.TestCounts(
        {"": SparseCounts.empty()}, {"": SparseCounts.empty()}, {"": SparseCounts.empty()}, None, []
    )
    counts = [item.counts or empty for item in loaded]
    # Figures and the ramp alignment look at seconds since each test's own start.
    for item, data in zip(loaded, counts, strict=True):
        item.relative = {case: hist.shifted(item.start_s or 0) for case, hist in data.latency.items()}

    overall_exact = [c.exact_ms.get("") if c.exact_ms else None for c in counts]
    overall = compare_quantiles(
        [c.latency[""] for c in counts], params.levels, exact_ms=overall_exact, settings=settings
    )
    http = compare_codes([c.http[""] for c in counts], "http", settings)
    net = compare_codes([c.net[""] for c in counts], "net", settings)

    case_sets = [set(c.cases) for c in counts]
    if params.cases:
        case_sets = [s & set(params.cases) for s in case_sets]
    common = sorted(set.intersection(*case_sets)) if case_sets else []
    only_in = {str(t.pk): sorted(s - set(common)) for t, s in zip(tests, case_sets, strict=True) if s - set(common)}
    per_case: dict[str, Any] = {}
    for case in common:
        exact = [c.exact_ms.get(case) if c.exact_ms else None for c in counts]
        per_case[case] = (
            compare_quantiles(
                # A case whose every request was discarded has codes but no response times.
                [c.latency.get(case, SparseCounts.empty()) for c in counts],
                params.levels,
                exact_ms=exact,
                tau_s=overall.block_s,  # a case's seconds drift with its test's: its units are as long
                settings=settings,
            )
        ).as_json()

    labels = [f"#{t.pk}" for t in tests]
    relative_overall = [item.relative.get("", SparseCounts.empty()) for item in loaded]
    figures: dict[str, Any] = {
        "quantiles": quantiles_figure(labels, relative_overall),
        "distribution": distribution_figure(labels, relative_overall),
    }
    by_load: dict[str, Any] | None = None
    # A ramp without a schedule (phout only) is recognised by its response rate.
    if any(
        is_ramp(t) or (not t.loadscheme and looks_like_ramp(rel))
        for t, rel in zip(tests, relative_overall, strict=True)
    ):
        load_result = compare_by_load(relative_overall, params.levels, settings=settings)
        by_load = _by_load_json(load_result, len(tests))
        figures["quantiles_by_load"] = by_load_figure(
            labels, load_result, [x for x in (50.0, 95.0, 99.0) if x in params.levels] or list(params.levels[:3])
        )

    return {
        "tests": [t.pk for t in tests],
        "align": params.align,
        "from": params.from_s,
        "to": params.to_s,
        "windows": [[item.window[0], item.window[1]] for item in loaded],
        "starts": [item.start_s for item in loaded],
        "exact": [c.exact_ms is not None for c in counts],
        **overall.as_json(),
        **_codes_json(http, net),
        "summary": summary_lines(labels, overall, http, net),
        "cases": {"selected": list(params.cases), "common": common, "only_in": only_in},
        "per_case": per_case,
        "by_load": by_load,
        "figures": figures,
        "method": METHOD,
        "url": page_url(params),
    }
