from django.apps import AppConfig


class SharingConfig(AppConfig):
    name = "backend.sharing"
    label = "sharing"
