"""URLs of the tankapi app (included from backend/urls.py): Yandex.Tank's Overload protocol at the host root.

Regexes accept each path with and without a trailing slash: APPEND_SLASH is off because `requests` turns a
redirected POST into a GET. The push paths are defined in push.py, because the ASGI door (asgi_door.py) serves
them too, in front of this URLconf.
"""

from django.urls import URLPattern, URLResolver, path, re_path

from backend.tankapi import push, views
from backend.tankapi.stop import StopView

urlpatterns: list[URLPattern | URLResolver] = [
    re_path(r"^api/job/create\.json/?$", views.create_job, name="tank-create"),
    re_path(r"^api/job/(?P<job>\d+)/edit\.json/?$", views.edit_job, name="tank-edit"),
    re_path(
        r"^api/job/(?P<job>\d+)/(?P<name>configinitial|configinfo|jobmonitoringconfig|console)\.txt/?$",
        views.config_upload,
        name="tank-config",
    ),
    re_path(push.PUSH_DATA_PATH, views.push_data, name="tank-push-data"),
    re_path(push.PUSH_MONITORING_PATH, views.push_monitoring, name="tank-push-monitoring"),
    re_path(r"^api/job/(?P<job>\d+)/close\.json/?$", views.close_job, name="tank-close"),
    # The uploader's optional `writer_endpoint` (data and monitoring to one URL).
    re_path(push.WRITER_PATH, views.writer_push, name="tank-writer"),
    # Lunapark-only and legacy calls.
    re_path(r"^api/job/(?P<job>\d+)/summary\.json/?$", views.job_summary, name="tank-job-summary"),
    re_path(r"^api/job/(?P<job>\d+)/(?:set_imbalance|event)\.json/?$", views.accepted_and_ignored),
    re_path(r"^api/v2/jobs/(?P<job>\d+)/?$", views.job_status, name="tank-status"),
    # Stopping a test from the web (the tank's side of it is the 410 above and on the pushes).
    path("api/v1/tests/<int:test_id>/stop", StopView.as_view(), name="test-stop"),
    re_path(r"^api/server/(?:lock|virtual_host)\.json/?$", views.accepted_and_ignored),
    # The task may be empty: a Lunapark-mode tank without `task:` asks for api/task//summary.json, which its HTTP
    # library sends as api/task/summary.json.
    re_path(r"^api/task/(?:(?P<task>[^/]*)/)?summary\.json/?$", views.task_summary, name="tank-task-summary"),
]
