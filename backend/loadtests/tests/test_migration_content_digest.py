"""Migration 0002: Upload.sha256 -> content_digest, the stored SHA-256 values kept under their algorithm's name."""

from __future__ import annotations

import pytest

from backend.projects.tests.migrating import migrate

BEFORE = [("loadtests", "0001_initial")]
AFTER = [("loadtests", "0002_upload_content_digest")]
OLD_DIGEST = "ab" * 32


@pytest.mark.django_db(transaction=True)
def test_stored_sha256_digests_are_kept_and_named() -> None:
    old = migrate(BEFORE).loader.project_state(BEFORE).apps
    user = old.get_model("auth", "User").objects.create(username="migrating")
    test = old.get_model("loadtests", "Test").objects.create(owner_id=user.pk, name="before the rename")
    Upload = old.get_model("loadtests", "Upload")
    hashed = Upload.objects.create(test_id=test.pk, sha256=OLD_DIGEST)
    unhashed = Upload.objects.create(test_id=test.pk, sha256="")

    new = migrate(AFTER).loader.project_state(AFTER).apps.get_model("loadtests", "Upload")
    assert new.objects.get(pk=hashed.pk).content_digest == f"sha256:{OLD_DIGEST}"
    assert new.objects.get(pk=unhashed.pk).content_digest == ""

    migrate(BEFORE)  # and back: the bare value again
    assert Upload.objects.get(pk=hashed.pk).sha256 == OLD_DIGEST
    migrate()
