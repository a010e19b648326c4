"""Django app config of the reports API."""

from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "backend.reports"
    label = "reports"

    def ready(self) -> None:
        from backend.core import pipeline
        from backend.reports.tasks import postprocess_test

        pipeline.register(pipeline.LANDED, postprocess_test)
