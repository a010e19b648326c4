from django.apps import AppConfig


class RetentionConfig(AppConfig):
    name = "backend.retention"
    label = "retention"
