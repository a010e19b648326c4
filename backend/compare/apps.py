from django.apps import AppConfig


class CompareConfig(AppConfig):
    name = "backend.compare"
    label = "compare"
