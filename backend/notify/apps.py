from django.apps import AppConfig


class NotifyConfig(AppConfig):
    name = "backend.notify"
    label = "notify"
