from django.apps import AppConfig


class NotifyConfig(AppConfig):
    name = "backend.notify"
    label = "notify"

    def ready(self) -> None:
        from backend.core import pipeline

        pipeline.register(pipeline.DIAGNOSED, "backend.notify.tasks.notify_test")
