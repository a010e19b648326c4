from django.apps import AppConfig


class DiagnosisConfig(AppConfig):
    name = "backend.diagnosis"
    label = "diagnosis"

    def ready(self) -> None:
        from backend.core import pipeline

        pipeline.register(pipeline.POSTPROCESSED, "backend.diagnosis.tasks.diagnose_test")
