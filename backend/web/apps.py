from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "backend.web"
    label = "web"
