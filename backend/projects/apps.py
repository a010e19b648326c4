from django.apps import AppConfig


class ProjectsConfig(AppConfig):
    name = "backend.projects"
    label = "projects"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from backend.projects import signals

        signals.connect()
