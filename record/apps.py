from django.apps import AppConfig


class RecordConfig(AppConfig):
    """The record of a campaign: search, export and import, archive, and the verifiable roll log."""

    name = "record"
