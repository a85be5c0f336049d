"""Microsoft Teams through the Bot Framework SDK (`botbuilder-core`, `botbuilder-schema`,
`botframework-connector`): activities in, each with the Bot Framework's JWT validated as the SDK does it
(its `JwtTokenExtractor` on the Bot Framework's OpenID metadata and signing keys, their endorsement of
the channel, the issuer, the expiry with 5 minutes' tolerance, the audience our app id through
`ChannelValidation.validate_identity`, and the token's `serviceurl` claim equal to the activity's);
replies out through the SDK's `ConnectorClient` to the activity's service URL, in its conversation
(a Teams channel thread, a personal chat), written as they stream (`update_activity`), the answer and
its sources as an Adaptive Card.

The bot's own token (the client-credentials grant the SDK asks MSAL for) is fetched with httpx
(`teams_credentials`): a channel's ``api_base_url`` (set by a superuser: a proxy, the tests' local Bot
Framework server) must move both the signing keys and the token endpoint. The messages and the card an
outgoing text becomes: `teams_cards`.
"""

from __future__ import annotations

import asyncio
import json
import re
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
from botbuilder.core import MessageFactory, TurnContext  # type: ignore[import-untyped]  # the Bot Framework SDK ships no type information
from botbuilder.schema import (  # type: ignore[import-untyped]  # the Bot Framework SDK ships no type information
    Activity,
    ActivityTypes,
    ConversationReference,
)
from botframework.connector import ConnectorClient  # type: ignore[import-untyped]  # the Bot Framework SDK ships no type information
from botframework.connector.auth import (  # type: ignore[import-untyped]  # the Bot Framework SDK ships no type information
    AuthenticationConstants,
    ChannelValidation,
    JwtTokenExtractor,
    SimpleCredentialProvider,
)
from django.http import HttpRequest
from msrest.exceptions import ClientRequestError, HttpOperationError

from connectors.errors import DeliveryError, InboundInvalid, SignatureRefused
from connectors.models import Channel, ChannelThread, InboundEvent
from connectors.platforms.base import Attachment, InboundMessage, Outgoing, Parsed
from connectors.platforms.stream import EditingStream
from connectors.platforms.teams_cards import TEXT_LIMIT, teams_activities
from connectors.platforms.teams_credentials import BotCredentials

TOKEN_URL = "https://login.microsoftonline.com/{tenant}/oauth2/v2.0/token"  # noqa: S105
STREAM_EDIT_SECONDS = 1.0  # Teams throttles a conversation's messages at a few a second
ATTACHMENT_MAX_BYTES = 20 * 1024 * 1024
FILE_INFO = "application/vnd.microsoft.teams.file.download.info"
_MENTION = re.compile(r"<at>[^<]*</at>\s*")
_VALIDATION = ThreadPoolExecutor(max_workers=4, thread_name_prefix="teams-jwt")


class TeamsConnector:
    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.app_id = str(channel.settings.get("teams_app_id") or "")
        self.password = channel.secrets.get("app_password", "")
        tenant = str(channel.settings.get("teams_tenant") or "botframework.com")
        if channel.api_base_url:
            base = channel.api_base_url.rstrip("/") + "/"
            self.metadata_url = f"{base}v1/.well-known/openidconfiguration"
            self.token_url = f"{base}{tenant}/oauth2/v2.0/token"
        else:
            self.metadata_url = AuthenticationConstants.TO_BOT_FROM_CHANNEL_OPENID_METADATA_URL
            self.token_url = TOKEN_URL.format(tenant=tenant)

    # --- in ---------------------------------------------------------------------------------
    def verify(self, request: HttpRequest) -> None:
        if not (self.app_id and self.password):
            raise SignatureRefused("the channel has no Microsoft app id and password")
        activity = _activity(request)
        service_url = str(activity.service_url or "")
        extractor = JwtTokenExtractor(
            ChannelValidation.TO_BOT_FROM_CHANNEL_TOKEN_VALIDATION_PARAMETERS,
            self.metadata_url,
            AuthenticationConstants.ALLOWED_SIGNING_ALGORITHMS,
        )
        credentials = SimpleCredentialProvider(self.app_id, self.password)
        header, channel_id = (
            request.headers.get("Authorization", ""),
            str(activity.channel_id or ""),
        )

        async def validated() -> Any:
            identity = await extractor.get_identity_from_auth_header(header, channel_id, [])
            return await ChannelValidation.validate_identity(identity, credentials)

        try:
            # The SDK's coroutines need no loop of ours: run on a thread of their own, so that a
            # loop running in the caller's thread (an ASGI server's, a test's) does not matter.
            identity = _VALIDATION.submit(asyncio.run, validated()).result(timeout=30)
        # The SDK refuses with PermissionError, PyJWT's errors, a bare Exception (endorsements),
        # requests' errors (the keys unreachable): any of them leaves the request unauthenticated.
        except Exception as error:
            raise SignatureRefused(f"Bot Framework token refused: {error}"[:300]) from error
        if not service_url or identity.get_claim_value("serviceurl") != service_url:
            raise SignatureRefused("the token's serviceurl is not the activity's")

    def parse(self, request: HttpRequest) -> Parsed:
        activity = _activity(request)
        if activity.type != ActivityTypes.message:
            return Parsed()  # conversation updates, typing, reactions: not a question
        sender, conversation = activity.from_property, activity.conversation
        if not (activity.id and sender and sender.id and conversation and conversation.id):
            raise InboundInvalid("a message activity without id, from or conversation")
        files = [
            Attachment(
                name=str(item.name or "file"),
                content_type=str((item.content or {}).get("fileType") or ""),
                url=str((item.content or {}).get("downloadUrl") or ""),
            )
            for item in activity.attachments or []
            if item.content_type == FILE_INFO and isinstance(item.content, dict)
        ]
        reference = TurnContext.get_conversation_reference(activity)
        return Parsed(
            messages=[
                InboundMessage(
                    message_id=f"{conversation.id}:{activity.id}",
                    thread_key=str(conversation.id)[:300],
                    text=_MENTION.sub("", str(activity.text or "")).strip(),
                    visitor_id=str(sender.aad_object_id or sender.id),
                    address={"reference": reference.serialize()},
                    thread_refs=(str(conversation.id)[:300],),
                    attachments=tuple(files),
                )
            ]
        )

    def attachment_fetch(self, attachment: Attachment) -> bytes:
        """A file's bytes from the pre-authenticated download URL Teams put in the signed activity."""
        if not attachment.url.startswith(("https://", self.channel.api_base_url or "https://")):
            raise InboundInvalid(f"not a download URL: {attachment.url}")
        with (
            httpx.Client(timeout=20) as client,
            client.stream("GET", attachment.url) as response,
        ):
            response.raise_for_status()
            data = b""
            for chunk in response.iter_bytes():
                data += chunk
                if len(data) > ATTACHMENT_MAX_BYTES:
                    raise InboundInvalid(f"{attachment.name} is larger than {ATTACHMENT_MAX_BYTES}")
        return data

    # --- out --------------------------------------------------------------------------------
    def stream_emitter(self, *, thread: ChannelThread, event: InboundEvent) -> EditingStream:
        def post(text: str) -> str:
            return self._call(thread, MessageFactory.text(text), ref="", sent=[])

        def edit(ref: str, text: str) -> None:
            self._call(thread, MessageFactory.text(text), ref=ref, sent=[])

        return EditingStream(
            event=event,
            post=post,
            edit=edit,
            shown=lambda text: text[:TEXT_LIMIT] + " …",
            every=STREAM_EDIT_SECONDS,
            errors=(DeliveryError,),
        )

    def send(
        self, *, thread: ChannelThread, outgoing: Outgoing, parts: list[str], replace_ref: str
    ) -> list[str]:
        sent = list(parts)
        for index, activity in enumerate(teams_activities(outgoing)):
            if index < len(sent):
                continue  # an earlier attempt sent it
            ref = replace_ref if index == 0 else ""
            sent.append(self._call(thread, activity, ref=ref, sent=sent))
        return sent

    def _call(self, thread: ChannelThread, activity: Activity, *, ref: str, sent: list[str]) -> str:
        """Reply in the thread's conversation (``ref``: update that activity instead); the id."""
        reference = ConversationReference.deserialize(thread.address["reference"])
        TurnContext.apply_conversation_reference(activity, reference)
        credentials = BotCredentials(
            app_id=self.app_id, password=self.password, token_url=self.token_url
        )
        conversations = ConnectorClient(credentials, base_url=reference.service_url).conversations
        conversation_id = reference.conversation.id
        try:
            if ref:
                activity.id = ref
                conversations.update_activity(conversation_id, ref, activity)
                return ref
            if reference.activity_id:
                response = conversations.reply_to_activity(
                    conversation_id, reference.activity_id, activity
                )
            else:
                response = conversations.send_to_conversation(conversation_id, activity)
        except HttpOperationError as error:
            raise _delivery_error(error, sent) from error
        except DeliveryError as error:  # the bot's token not had
            raise DeliveryError(
                error.message, transient=error.transient, retry_after=error.retry_after, parts=sent
            ) from error
        except (ClientRequestError, OSError) as error:  # the network, a timeout
            raise DeliveryError(str(error), transient=True, parts=sent) from error
        return str(response.id)


def _activity(request: HttpRequest) -> Activity:
    try:
        return Activity.deserialize(json.loads(request.body))
    except Exception as error:  # msrest's DeserializationError, JSON's ValueError
        raise SignatureRefused("the body is not a Bot Framework activity") from error


def _delivery_error(error: HttpOperationError, sent: list[str]) -> DeliveryError:
    status = error.response.status_code if error.response is not None else 0
    headers = error.response.headers if error.response is not None else {}
    try:
        retry_after = float(headers["Retry-After"]) if "Retry-After" in headers else None
    except ValueError:
        retry_after = None
    return DeliveryError(
        f"Teams answered HTTP {status}",
        transient=status == 429 or status >= 500 or status == 0,
        retry_after=retry_after,
        parts=sent,
    )
