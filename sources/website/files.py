"""A file a website links to (PDF, DOCX, plain text...): read by rag's parsers, titled by the one title
rule, or skipped with its reason."""

from __future__ import annotations

from rag.errors import IngestError
from rag.parsing import document_parse
from rag.parsing.titles import document_title
from sources.kinds.base import Fetched, Location, Outcome
from sources.website.client import RawResponse
from sources.website.responses import FILE_TYPES, response_validators
from sources.website.urls import url_filename


def file_fetched(*, location: Location, url: str, response: RawResponse, media: str) -> Fetched:
    """A linked file (PDF, DOCX...) given to the existing parsers as an upload would be; skipped when its
    type is not one they read, or they cannot read it."""
    extension = FILE_TYPES.get(media)
    if extension is None:
        return Fetched(
            location=location,
            outcome=Outcome.SKIPPED,
            url=url,
            reason="content_type",
            status=response.status,
        )
    filename = url_filename(url, extension)
    try:
        parsed = document_parse(data=response.body, filename=filename)
    except IngestError as exc:
        return Fetched(
            location=location,
            outcome=Outcome.SKIPPED,
            url=url,
            reason=f"unreadable:{exc.code}",
            status=response.status,
        )
    text = "\n\n".join(block.text for block in parsed.blocks)
    return Fetched(
        location=location,
        outcome=Outcome.FETCHED,
        url=url,
        status=response.status,
        content=response.body,
        filename=filename,
        content_type=media,
        title=document_title(
            heading=parsed.heading, own_title=parsed.own_title, filename=filename, url=url
        ),
        text=text,
        validators=response_validators(response),
    )
