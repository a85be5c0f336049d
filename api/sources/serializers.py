"""Request and response shapes of the sources endpoints. Credentials are write-only: an answer says
whether a source has them, never what they are."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from api.serializers import QueryParamsSerializer, StrictCharField, StrictUUIDField
from sources.models import Source, SourceSync
from sources.selectors import sync_progress

MAX_BOT_IDS = 100


class StrictBooleanField(serializers.BooleanField):
    """A JSON true or false only (DRF also takes 0, 1, "yes"...)."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer only (DRF also takes "5", 5.0 and true)."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return int(super().to_internal_value(data))


class SourceListQuerySerializer(QueryParamsSerializer):
    limit = serializers.IntegerField(
        required=False, min_value=1, max_value=100, help_text="Page size (default 20)."
    )
    offset = serializers.IntegerField(required=False, min_value=0)


class SourceSyncSerializer(serializers.ModelSerializer[SourceSync]):
    duration_seconds = serializers.FloatField(read_only=True, allow_null=True)
    progress = serializers.SerializerMethodField(
        help_text="{done, total}: pages whose outcome is recorded, of the pages known so far."
    )

    class Meta:
        model = SourceSync
        fields = [
            "id",
            "status",
            "trigger",
            "queued_at",
            "started_at",
            "finished_at",
            "duration_seconds",
            "complete",
            "counts",
            "errors",
            "retirement",
            "progress",
        ]
        read_only_fields = fields

    def get_progress(self, sync: SourceSync) -> dict[str, int]:
        return sync_progress(sync=sync)


class SourceSerializer(serializers.ModelSerializer[Source]):
    bot_ids = serializers.SerializerMethodField()
    has_credentials = serializers.SerializerMethodField()
    last_sync = serializers.SerializerMethodField()

    class Meta:
        model = Source
        fields = [
            "id",
            "name",
            "kind",
            "config",
            "bot_ids",
            "has_credentials",
            "schedule_minutes",
            "enabled",
            "created_at",
            "last_sync",
        ]
        read_only_fields = fields

    def get_bot_ids(self, source: Source) -> list[str]:
        return [str(bot.pk) for bot in source.bots.all()]

    def get_has_credentials(self, source: Source) -> bool:
        return bool(source.credentials)

    def get_last_sync(self, source: Source) -> dict[str, Any] | None:
        sync = source.syncs.order_by("-queued_at").first()
        return SourceSyncSerializer(sync).data if sync is not None else None


class SourceCreateSerializer(serializers.Serializer[dict[str, Any]]):
    name = StrictCharField(max_length=200)
    kind = serializers.ChoiceField(choices=Source.Kind.choices)
    config = serializers.DictField(
        help_text="Git: repository_url, branch, path, base_url. Website: start_urls, sitemap_urls,"
        " include, exclude, max_pages, max_depth, render_javascript."
    )
    bot_ids = serializers.ListField(
        child=StrictUUIDField(),
        required=False,
        max_length=MAX_BOT_IDS,
        help_text="The bots that know the source's pages (ones the key may use). Left out: every bot "
        "the key may use, as a document upload; [] for none.",
    )
    credentials = serializers.DictField(
        required=False,
        write_only=True,
        help_text="For a protected site: {header_name, header_value} or {username, password}. "
        "Stored write-only: never returned.",
    )
    schedule_minutes = StrictIntegerField(
        min_value=0,
        max_value=525_600,
        default=0,
        help_text="Sync every this many minutes; 0: on demand.",
    )
    sync = StrictBooleanField(default=True, help_text="Start the first sync now.")
