"""Django app config of the reports API."""

from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "backend.reports"
    label = "reports"
