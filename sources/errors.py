"""The sources app's errors: a source that cannot be read at all (a Git URL that does not exist), a
configuration that cannot be used, a sync already running."""

from __future__ import annotations

from core.errors import ErrorKind, ParleyError


class SourceError(ParleyError):
    """A source's configuration cannot be used."""

    code = "source_invalid"
    kind = ErrorKind.INVALID


class SourceUnreachable(ParleyError):
    """A kind could not list its source at all (a repository that does not exist, a clone refused):
    the sync fails saying so and retires nothing."""

    code = "source_unreachable"
    kind = ErrorKind.UNAVAILABLE
