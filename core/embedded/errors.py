"""The embedded services' one error: a service that could not start, with what to do about it."""

from core.errors import ErrorKind, ParleyError


class EmbeddedServiceError(ParleyError):
    """An embedded service could not be started; the message says what to do."""

    code = "embedded_service_failed"
    kind = ErrorKind.UNAVAILABLE
