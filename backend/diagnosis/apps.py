from django.apps import AppConfig


class DiagnosisConfig(AppConfig):
    name = "backend.diagnosis"
    label = "diagnosis"

    def ready(self) -> None:
        from backend.core import pipeline
        from backend.diagnosis.tasks import diagnose_test

        pipeline.register(pipeline.POSTPROCESSED, diagnose_test)
