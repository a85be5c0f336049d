"""The kinds of source (website, Git repository), each behind the one interface of `base`;
`kind_build` makes the one a source's kind names from its stored configuration."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any, cast

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
        # The website kind lives in its own package (sources.website), built beside this engine.
        try:
            website = importlib.import_module("sources.website")
        except ImportError as exc:
            raise SourceError("The website kind is not installed.") from exc
        return cast(SourceKind, website.website_kind(config=config, credentials=dict(credentials)))
    raise SourceError(f"Unknown kind of source {kind!r}.")
