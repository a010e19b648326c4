from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "backend.reports"
    label = "reports"
