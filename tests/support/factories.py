"""factory_boy factories for tenancy and bots: users, workspaces, memberships, bots, topics, lexicon."""

from __future__ import annotations

import factory
from django.contrib.auth import get_user_model

from bots.models import Bot
from core.models import Membership, Workspace
from prompt_context.models import LexiconGroup, Topic

PASSWORD = "a-long-test-passphrase-42"


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.com")
    is_staff = True
    password = factory.PostGenerationMethodCall("set_password", PASSWORD)

    @factory.post_generation
    def saved(self, create: bool, extracted: object, **kwargs: object) -> None:
        if create:
            self.save()


class WorkspaceFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Workspace

    name = factory.Sequence(lambda n: f"Workspace {n}")
    slug = factory.Sequence(lambda n: f"workspace-{n}")


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    workspace = factory.SubFactory(WorkspaceFactory)
    user = factory.SubFactory(UserFactory)
    role = Membership.Role.OWNER


class BotFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Bot

    workspace = factory.SubFactory(WorkspaceFactory)
    name = factory.Sequence(lambda n: f"Bot {n}")
    role = "support assistant"
    domain = "e-bikes"


class TopicFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Topic

    bot = factory.SubFactory(BotFactory)
    name = factory.Sequence(lambda n: f"Topic {n}")
    kind = Topic.Kind.COVERED


class LexiconGroupFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = LexiconGroup

    bot = factory.SubFactory(BotFactory)
    terms = factory.Sequence(lambda n: [f"term {n}", f"synonym {n}"])
