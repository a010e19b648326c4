from django.apps import AppConfig


class LoadtestsConfig(AppConfig):
    name = "backend.loadtests"
    label = "loadtests"
    default_auto_field = "django.db.models.BigAutoField"
