from django.apps import AppConfig


class NotifyConfig(AppConfig):
    name = "backend.notify"
    label = "notify"

    def ready(self) -> None:
        from backend.core import pipeline
        from backend.notify.tasks import notify_test

        pipeline.register(pipeline.DIAGNOSED, notify_test)
