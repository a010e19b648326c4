from django.apps import AppConfig


class RegressionsConfig(AppConfig):
    name = "backend.regressions"
    label = "regressions"
