"""Sharing: chat unfurl tags for /<id> and /compare/... and their PNG previews."""

from django.apps import AppConfig


class SharingConfig(AppConfig):
    name = "backend.sharing"
    label = "sharing"
