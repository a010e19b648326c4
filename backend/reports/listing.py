"""The test list's figures and order: what each row shows beyond metadata, and the sort keys it accepts.

Figures come from `TestFigures` (stored by post-processing) and the diagnosis' imbalance; a test without them
(online, never processed) sorts last whatever the direction.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ObjectDoesNotExist
from django.db.models import CharField, Exists, F, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce, Lower, NullIf

from analytics.definitions import format_percent, int_keys, outcomes, share
from analytics.numbers import is_digits
from backend.loadtests.models import Test, TestStatus, Upload, UploadStatus
from backend.reports.models import TestFigures, TestTag

# ?ordering= key (a leading "-" reverses it) → the expression sorted on.
ORDERINGS: dict[str, Any] = {
    "id": F("id"),
    "name": Lower("name"),
    "component": Lower("component"),
    "author": Lower("author_name"),
    "status": F("status"),
    "created_at": F("created_at"),
    "duration": F("duration_s"),
    "q99": F("figures__q99_ms"),
    "max_rps": F("figures__max_rps"),
    "imbalance_rps": F("analysis__imbalance_rps"),
}
DEFAULT_ORDERING = "-created_at"
# Columns that are never NULL: sorted plainly, so that PostgreSQL walks their index for a page of the list instead
# of sorting every readable test (an ORDER BY with NULLS LAST on a descending key cannot use a plain btree index).
NOT_NULL_ORDERINGS = frozenset({"id", "created_at", "status"})


def with_list_fields(tests: QuerySet[Test]) -> QuerySet[Test]:
    """The annotations the list sorts on and the serializer reads, in the list's one query."""
    return tests.select_related("figures").annotate(
        # The author is the owner of the token that created the test (a person of this service); the tank's
        # `person` (its machine's OS user) only where there is no owner.
        author_name=Coalesce(F("owner__username"), NullIf("person", Value("")), output_field=CharField()),
        duration_s=F("last_ts") - F("first_ts"),
        imbalance_rps=F("analysis__imbalance_rps"),
        # The test's latest upload: a refused file leaves its test waiting, and the list must say why.
        latest_upload_status=Subquery(_latest_upload().values("status")[:1]),
        latest_upload_error=Subquery(_latest_upload().values("error")[:1]),
    )


def _latest_upload() -> QuerySet[Upload]:
    return Upload.objects.filter(test=OuterRef("pk")).order_by("-id")


def matching(text: str) -> Q:
    """The list's search: a word in the test's texts or its author's name, a tag's whole name, or the test's id.

    The tag is matched by EXISTS, not a join: a join repeats a test per tag and needs a DISTINCT over every column
    of the list's query, which costs the whole search's matches their annotations before the page is cut."""
    cond = (
        Q(name__icontains=text)
        | Q(description__icontains=text)
        | Q(task__icontains=text)
        | Q(component__icontains=text)
        | Q(person__icontains=text)
        | Q(version__icontains=text)
        | Q(owner__username__icontains=text)
        | Q(Exists(TestTag.objects.filter(test=OuterRef("pk"), name__iexact=text)))
    )
    if is_digits(text):
        cond |= Q(pk=int(text))
    return cond


class UnknownOrdering(ValueError):
    pass


def ordered(tests: QuerySet[Test], key: str) -> QuerySet[Test]:
    name = key.removeprefix("-")
    if name not in ORDERINGS:
        raise UnknownOrdering(f"one of {', '.join(ORDERINGS)}, optionally with a leading '-'")
    expr = ORDERINGS[name]
    nulls_last = None if name in NOT_NULL_ORDERINGS else True
    order = expr.desc(nulls_last=nulls_last) if key.startswith("-") else expr.asc(nulls_last=nulls_last)
    return tests.order_by(order, "-id")


# The list calls a test's result "errors" from this error share on.
ERRORS_RESULT_SHARE = 0.01


def store_figures(test: Test, summary: dict[str, Any]) -> None:
    """Keeps the whole test's summary figures for the list (post-processing calls it with the summary): the same
    figures the report's header shows, by the same definitions (analytics.definitions)."""
    result = outcomes(int_keys(summary.get("http_codes") or {}), int_keys(summary.get("net_codes") or {}))
    TestFigures.objects.update_or_create(
        test=test,
        defaults={
            "responses": int(summary.get("count") or 0),
            "q99_ms": (summary.get("quantiles_ms") or {}).get("99"),
            "max_rps": (summary.get("rps") or {}).get("max"),
            "failed": result.failed,
        },
    )


def error_share_of(test: Test) -> float | None:
    """The whole test's error share (analytics.definitions), as the report's header shows it."""
    figures = figures_of(test)
    if figures is None or figures.failed is None:
        return None
    return share(figures.failed, figures.responses)


def result_of(test: Test) -> dict[str, str]:
    """One word for the list's Result column and the reason behind it."""
    if test.status == "failed":
        return {"kind": "failed", "text": test.error or "failed"}
    if test.status == "online":
        return {"kind": "running", "text": "running"}
    if test.status == TestStatus.PROCESSING:
        failure = _upload_failure(test)
        if failure:
            return {"kind": "failed", "text": f"upload refused: {failure}"}
        return {"kind": "processing", "text": test.error or "processing"}
    if test.exit_code not in (None, 0):
        reason = f": {test.exit_reason}" if test.exit_reason else ""
        return {"kind": "stopped", "text": f"exit code {test.exit_code}{reason}"}
    errors = error_share_of(test)
    if errors is not None and errors >= ERRORS_RESULT_SHARE:
        return {"kind": "errors", "text": f"{format_percent(errors)} errors"}
    return {"kind": "ok", "text": "ok"}


def _upload_failure(test: Test) -> str | None:
    if hasattr(test, "latest_upload_status"):  # annotated by the list's query
        status, error = test.latest_upload_status, getattr(test, "latest_upload_error", "")
    else:
        latest = Upload.objects.filter(test=test).order_by("-id").first()
        status, error = (latest.status, latest.error) if latest else (None, "")
    return (error or "the upload failed") if status == UploadStatus.FAILED else None


def _has_figures(test: Test) -> bool:
    try:
        return test.figures is not None
    except ObjectDoesNotExist:
        return False


def figures_of(test: Test) -> TestFigures | None:
    return test.figures if _has_figures(test) else None
