from django.apps import AppConfig


class TankapiConfig(AppConfig):
    name = "backend.tankapi"
    label = "tankapi"
