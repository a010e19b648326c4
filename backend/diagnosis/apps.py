from django.apps import AppConfig


class DiagnosisConfig(AppConfig):
    name = "backend.diagnosis"
    label = "diagnosis"
