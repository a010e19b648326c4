from django.apps import AppConfig


class TankapiConfig(AppConfig):
    name = "backend.tankapi"
    label = "tankapi"

    def ready(self) -> None:
        from backend.tankapi import revocation

        revocation.connect()
