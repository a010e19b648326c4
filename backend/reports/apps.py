"""Django app config of the reports API."""

from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "backend.reports"
    label = "reports"

    def ready(self) -> None:
        from backend.core import pipeline

        pipeline.register(pipeline.LANDED, "backend.reports.tasks.postprocess_test")
