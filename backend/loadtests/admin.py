"""The admin site for operators: tests, uploads and API tokens (users come from django.contrib.auth's admin).

Tokens cannot be created here (the raw token would have nowhere safe to be shown: use `/tokens` or
`manage.py issue_token`), only inspected and revoked; their hashes are never displayed.
"""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from backend.core.admin_types import ModelAdmin, TabularInline
from backend.loadtests.models import ApiToken, Test, Upload
from backend.loadtests.tokens import revoke_token


class UploadInline(TabularInline[Upload, Test]):
    model = Upload
    extra = 0
    can_delete = False
    fields = ["id", "status", "size_bytes", "lines_total", "lines_bad", "created_at", "finished_at", "error"]
    readonly_fields = ["id", "status", "size_bytes", "lines_total", "lines_bad", "created_at", "finished_at", "error"]
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Test | None = None) -> bool:
        return False


@admin.register(Test)
class TestAdmin(ModelAdmin[Test]):
    list_display = ["id", "name", "project", "owner", "component", "status", "visibility", "starred", "created_at"]
    list_filter = ["status", "visibility", "project", "starred", "has_stream"]
    search_fields = ["=id", "name", "component", "person", "task", "owner__username"]
    raw_id_fields = ["owner", "active_upload"]
    readonly_fields = ["upload_token", "created_at", "first_ts", "last_ts", "last_push_at", "has_stream"]
    date_hierarchy = "created_at"
    inlines = [UploadInline]


@admin.register(Upload)
class UploadAdmin(ModelAdmin[Upload]):
    list_display = ["id", "test", "status", "size_bytes", "lines_total", "lines_bad", "created_at"]
    list_filter = ["status"]
    search_fields = ["=id", "=test__id", "content_digest"]
    raw_id_fields = ["test"]
    readonly_fields = ["content_digest", "file_path", "size_bytes", "progress_bytes", "created_at", "finished_at"]


@admin.action(description="Revoke the selected tokens")
def revoke_selected(modeladmin: ModelAdmin[ApiToken], request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
    for token in queryset.filter(revoked_at__isnull=True):
        revoke_token(token)


@admin.register(ApiToken)
class ApiTokenAdmin(ModelAdmin[ApiToken]):
    list_display = ["id", "user", "name", "project", "role", "key_prefix", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["revoked_at", "project"]
    search_fields = ["user__username", "name", "key_prefix"]
    fields = ["user", "name", "project", "role", "key_prefix", "created_at", "last_used_at", "revoked_at"]
    readonly_fields = ["user", "key_prefix", "created_at", "last_used_at", "revoked_at"]
    actions = [revoke_selected]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
