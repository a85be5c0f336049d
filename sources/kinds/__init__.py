"""The kinds of source (website, Git repository), each behind the one interface of `base`;
`kind_build` makes the one a source's kind names from its stored configuration."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings

from sources.errors import SourceError
from sources.kinds.base import KindConfig, SourceKind


def kind_build(*, kind: str, config: KindConfig, credentials: Mapping[str, Any]) -> SourceKind:
    """The kind named `kind` over its configuration and credentials (plain data)."""
    if kind == "git":
        from sources.kinds.git import git_kind

        return git_kind(
            config=config,
            credentials=dict(credentials),
            checkouts=settings.PARLEY_SOURCES_CHECKOUTS,
        )
    if kind == "website":
        from sources.website import website_kind

        # The credentials (a header or basic auth) are stored apart from the configuration, so that
        # no page or answer ever shows them; the kind joins them.
        return website_kind(config=config, credentials=credentials)
    raise SourceError(f"Unknown kind of source {kind!r}.")
