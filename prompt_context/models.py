"""The Rag prompt context of a bot: covered and excluded topics, and business lexicon groups.

The database holds the invariants: a topic name appears once per bot whatever its kind
(so it cannot be both covered and excluded), and a lexicon group has 2 to 30 terms.
"""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from bots.models import Bot
from prompt_context.limits import (
    DEFINITION_MAX,
    TERM_MAX,
    TERMS_PER_GROUP_MAX,
    TERMS_PER_GROUP_MIN,
    TOPIC_NAME_MAX,
)

SMALL_TALK = "Small talk"


class Topic(models.Model):
    class Kind(models.TextChoices):
        COVERED = "covered", "Covered"
        EXCLUDED = "excluded", "Excluded"

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="topics")
    name = models.CharField(max_length=TOPIC_NAME_MAX)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.COVERED)

    class Meta:
        ordering = ["kind", "name"]
        constraints = [
            models.UniqueConstraint(
                Lower("name"),
                "bot",
                name="topic_unique_name_per_bot",
                violation_error_message="A topic with this name already exists for this bot (covered or excluded).",
            ),
            models.CheckConstraint(
                condition=~Q(name=""),
                name="topic_name_not_blank",
                violation_error_message="A topic needs a name.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.kind})"


class LexiconGroup(models.Model):
    """Business synonyms: terms that mean the same thing to this bot's users."""

    bot = models.ForeignKey(Bot, on_delete=models.CASCADE, related_name="lexicon_groups")
    terms = ArrayField(models.CharField(max_length=TERM_MAX), size=TERMS_PER_GROUP_MAX)
    definition = models.CharField(max_length=DEFINITION_MAX, blank=True)

    class Meta:
        ordering = ["id"]
        verbose_name = "lexicon group"
        constraints = [
            models.CheckConstraint(
                condition=Q(
                    terms__len__gte=TERMS_PER_GROUP_MIN, terms__len__lte=TERMS_PER_GROUP_MAX
                ),
                name="lexicon_group_term_count",
                violation_error_message=(
                    f"A lexicon group holds between {TERMS_PER_GROUP_MIN} and {TERMS_PER_GROUP_MAX} terms."
                ),
            ),
        ]

    def __str__(self) -> str:
        return ", ".join(self.terms)
