from django.apps import AppConfig


class UploadsConfig(AppConfig):
    name = "backend.uploads"
    label = "uploads"
