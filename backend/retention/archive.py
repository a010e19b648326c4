"""Archives: one test in one file, to move it to another Tankodrom (or keep it off the server).

The file is a zip of
  manifest.json        format and version, the test's metadata, tags, notes, stored figures, its upload's format
  samples/<col>.npy    the active upload's raw samples, a column each (numpy, no pickles); `tag` as codes into
                       the manifest's `sample_tags`; absent when the test has none (streamed, or expired)
  aggregates.jsonl     the per-second rows (every source), one JSON array a line in the table's column order
  monitoring.jsonl     the monitoring points, likewise
Importing creates a new test owned by the importer, with a new upload id for the samples and for the per-second
rows derived from them, so its summary, tables and charts answer as the original's did. An archive is read member
by member with each member's size checked first: a crafted file cannot inflate beyond MAX_MEMBER_BYTES.
"""

from __future__ import annotations

import io
import json
import zipfile
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import numpy as np
from django.conf import settings
from django.db import transaction
from django.utils.dateparse import parse_datetime

from backend.clickhouse.queries import archive as ch
from backend.loadtests.facts import has_samples
from backend.loadtests.models import RUN_LABELS, RUN_OUTCOME, RUN_SETUP, Test, TestStatus, Upload, UploadStatus
from backend.projects.models import Project, Visibility, default_project
from backend.reports.models import TestFigures, TestNote, TestTag
from backend.uploads.models import UploadFormat

FORMAT = "tankodrom-archive"
VERSION = 1
MANIFEST = "manifest.json"
SAMPLES_DIR = "samples/"
AGGREGATES = "aggregates.jsonl"
MONITORING = "monitoring.jsonl"
MAX_MANIFEST_BYTES = 64 * 1024 * 1024

# The timestamps among them, ISO strings in the manifest.
DATETIME_FIELDS = ("created_at", "finished_at", "raw_expired_at", "aggregates_expired_at")
# The test's fields an archive carries (ids, owner and tokens are the receiving instance's own).
TEST_FIELDS = (
    *RUN_LABELS,
    *RUN_SETUP,
    "tank_type",
    *RUN_OUTCOME,
    "first_ts",
    "last_ts",
    "config_initial",
    "config_info",
    "config_monitoring",
    "visibility",
    *DATETIME_FIELDS,
)
FINISHED = (TestStatus.READY, TestStatus.FAILED)


class ArchiveError(ValueError):
    """An archive that cannot be written or read; the message names the problem (and the member)."""


def _max_member_bytes() -> int:
    return int(settings.TANKODROM_MAX_INFLATED_BYTES)


def _jsonable(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def _has_samples(test: Test) -> bool:
    """Whether the test's active upload still holds raw samples to carry (none once retention expired them)."""
    if not test.active_upload_id or test.raw_expired_at is not None:
        return False
    return has_samples(test.active_upload_id)


def manifest_of(test: Test) -> dict[str, Any]:
    upload = Upload.objects.filter(pk=test.active_upload_id).first() if test.active_upload_id else None
    fmt = UploadFormat.objects.filter(upload_id=upload.pk).first() if upload else None
    figures = TestFigures.objects.filter(test=test).first()
    return {
        "format": FORMAT,
        "version": VERSION,
        "test": {name: _jsonable(getattr(test, name)) for name in TEST_FIELDS},
        "source_test_id": int(test.pk),
        "tags": list(TestTag.objects.filter(test=test).values_list("name", flat=True)),
        "notes": [{"ts": n.ts, "text": n.text} for n in TestNote.objects.filter(test=test)],
        "figures": None
        if figures is None
        else {
            "responses": figures.responses,
            "q99_ms": figures.q99_ms,
            "max_rps": figures.max_rps,
            "failed": figures.failed,
        },
        "upload": None
        if upload is None
        else {
            "source_id": int(upload.pk),
            "content_digest": upload.content_digest,
            "size_bytes": upload.size_bytes,
            "lines_total": upload.lines_total,
            "lines_bad": upload.lines_bad,
            "format": None
            if fmt is None
            else {"requested": fmt.requested, "detected": fmt.detected, "samples": fmt.samples},
        },
    }


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def export(test: Test, out: IO[bytes]) -> None:
    """Write `test` as an archive to `out` (a finished test only)."""
    if test.status not in FINISHED:
        raise ArchiveError(f"test: test {test.pk} is {test.status}; only a finished test can be exported")
    manifest = manifest_of(test)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as zf:
        if _has_samples(test):
            columns = ch.sample_columns(int(test.pk), int(test.active_upload_id or 0))
            names, codes = np.unique(columns.pop("tag").astype(str), return_inverse=True)
            manifest["sample_tags"] = [str(n) for n in names]
            columns["tag"] = codes.astype(np.int32)
            for name, values in columns.items():
                zf.writestr(f"{SAMPLES_DIR}{name}.npy", _npy(values))
        with zf.open(AGGREGATES, "w", force_zip64=True) as f:
            for row in ch.aggregate_rows(int(test.pk)):
                f.write(json.dumps(list(row)).encode() + b"\n")
        with zf.open(MONITORING, "w", force_zip64=True) as f:
            for row in ch.monitoring_rows(int(test.pk)):
                f.write(json.dumps(list(row)).encode() + b"\n")
        zf.writestr(MANIFEST, json.dumps(manifest, indent=1))


def export_to(test: Test, path: Path) -> None:
    with path.open("wb") as f:
        export(test, f)


# ── import ──────────────────────────────────────────────────────────────────────────────────────────────────


def _member(zf: zipfile.ZipFile, name: str, limit: int) -> bytes:
    try:
        info = zf.getinfo(name)
    except KeyError:
        raise ArchiveError(f"file: the archive has no {name}") from None
    if info.file_size > limit:
        raise ArchiveError(f"file: {name} inflates to {info.file_size} bytes, more than {limit} allowed")
    return zf.read(info)


def _read_manifest(zf: zipfile.ZipFile) -> dict[str, Any]:
    try:
        manifest = json.loads(_member(zf, MANIFEST, MAX_MANIFEST_BYTES))
    except RecursionError:
        raise ArchiveError(f"file: {MANIFEST} is nested too deep") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ArchiveError(f"file: {MANIFEST} is not JSON: {exc}") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise ArchiveError(f"file: not a Tankodrom archive ({MANIFEST} lacks format {FORMAT!r})")
    if manifest.get("version") != VERSION:
        raise ArchiveError(f"file: archive version {manifest.get('version')!r}; this server reads version {VERSION}")
    if not isinstance(manifest.get("test"), dict):
        raise ArchiveError(f"file: {MANIFEST} has no test")
    return manifest


def _jsonl(zf: zipfile.ZipFile, name: str, width: int) -> list[list[Any]]:
    rows = []
    for number, line in enumerate(_member(zf, name, _max_member_bytes()).splitlines(), start=1):
        try:
            row = json.loads(line)
        except RecursionError:
            raise ArchiveError(f"file: {name} line {number} is nested too deep") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ArchiveError(f"file: {name} line {number} is not JSON: {exc}") from None
        if not isinstance(row, list) or len(row) != width:
            raise ArchiveError(f"file: {name} line {number} is not a row of {width} values")
        rows.append(row)
    return rows


def _samples(zf: zipfile.ZipFile, manifest: dict[str, Any]) -> dict[str, np.ndarray] | None:
    names = [f"{SAMPLES_DIR}{c}.npy" for c in ch.SAMPLE_COLUMNS]
    present = [n in zf.namelist() for n in names]
    if not any(present):
        return None
    columns: dict[str, np.ndarray] = {}
    for column, name in zip(ch.SAMPLE_COLUMNS, names, strict=True):
        try:
            columns[column] = np.load(io.BytesIO(_member(zf, name, _max_member_bytes())), allow_pickle=False)
        except ValueError as exc:
            raise ArchiveError(f"file: {name} is not a numpy array: {exc}") from None
    lengths = {len(v) for v in columns.values()}
    if len(lengths) != 1:
        raise ArchiveError(f"file: the sample columns differ in length: {sorted(lengths)}")
    tags = manifest.get("sample_tags")
    codes = columns["tag"]
    if not isinstance(tags, list) or (len(codes) and (codes.min() < 0 or codes.max() >= len(tags))):
        raise ArchiveError("file: sample tags do not match the manifest's sample_tags")
    columns["tag"] = np.asarray(tags, dtype=object)[codes] if len(codes) else np.zeros(0, dtype=object)
    return columns


def _test_fields(data: dict[str, Any]) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for name in TEST_FIELDS:
        if name not in data:
            continue
        value = data[name]
        if name in DATETIME_FIELDS and value is not None:
            parsed = parse_datetime(str(value))
            if parsed is None:
                raise ArchiveError(f"test.{name}: not a date and time: {value!r}")
            value = parsed
        fields[name] = value
    if "visibility" in fields and fields["visibility"] not in Visibility.values:
        raise ArchiveError(f"test.visibility: {fields['visibility']!r}; one of {', '.join(Visibility.values)}")
    if fields.get("status") not in FINISHED:
        raise ArchiveError(f"test.status: {fields.get('status')!r}; an archive holds a finished test")
    return fields


def import_archive(source: IO[bytes] | Path, owner: Any, project: Project | None = None) -> Test:
    """Create a new test from an archive in `project` (None: the default one); returns it. Nothing is written when
    the archive is refused."""
    try:
        zf = zipfile.ZipFile(source)
    except zipfile.BadZipFile as exc:
        raise ArchiveError(f"file: not a zip archive: {exc}") from None
    with zf:
        manifest = _read_manifest(zf)
        fields = _test_fields(manifest["test"])
        samples = _samples(zf, manifest)
        aggregates = _jsonl(zf, AGGREGATES, len(ch.AGGREGATE_COLUMNS))
        points = _jsonl(zf, MONITORING, len(ch.MONITORING_COLUMNS))
    created_at = fields.pop("created_at", None)
    upload_info = manifest.get("upload") if isinstance(manifest.get("upload"), dict) else None
    with transaction.atomic():
        test = Test.objects.create(owner=owner, project=project or default_project(), **fields)
        upload = None
        if upload_info is not None:
            upload = Upload.objects.create(
                test=test,
                status=UploadStatus.READY,
                content_digest=str(upload_info.get("content_digest") or ""),
                size_bytes=int(upload_info.get("size_bytes") or 0),
                progress_bytes=int(upload_info.get("size_bytes") or 0),
                lines_total=int(upload_info.get("lines_total") or 0),
                lines_bad=int(upload_info.get("lines_bad") or 0),
            )
            fmt = upload_info.get("format")
            if isinstance(fmt, dict):
                UploadFormat.objects.create(
                    upload=upload,
                    requested=str(fmt.get("requested") or ""),
                    detected=str(fmt.get("detected") or ""),
                    samples=bool(fmt.get("samples", True)),
                )
            test.active_upload = upload
        if created_at is not None:
            test.created_at = created_at
        test.save()
        for tag in manifest.get("tags") or []:
            TestTag.objects.get_or_create(test=test, name=str(tag)[:64])
        for note in manifest.get("notes") or []:
            TestNote.objects.create(test=test, ts=int(note["ts"]), text=str(note["text"])[:500])
        figures = manifest.get("figures")
        if isinstance(figures, dict):
            TestFigures.objects.create(
                test=test,
                **{k: figures.get(k) for k in ("q99_ms", "max_rps", "failed")},
                responses=int(figures.get("responses") or 0),
            )
        # ClickHouse last: a failure there rolls the PostgreSQL rows back; rows already inserted belong to a test
        # id no one reads (the import may be run again).
        old_source = int(upload_info["source_id"]) if upload_info else None
        new_id = int(test.pk)
        if samples is not None and upload is not None:
            ch.insert_samples(new_id, int(upload.pk), samples)
        rows = []
        for row in aggregates:
            from_source = int(row[1])
            if from_source != 0 and from_source != old_source:
                continue  # rows of an upload that was not the test's data
            rows.append([new_id, 0 if from_source == 0 else int(upload.pk) if upload else 0, *row[2:]])
        ch.insert_aggregates(rows)
        ch.insert_monitoring([[new_id, *row[1:]] for row in points])
    return test
