"""core.redaction on its own: typed placeholders, look-alikes left alone, JSON and log records."""

from __future__ import annotations

import logging

from django.conf import settings

from core.redaction import DEFAULT_PHONE_REGIONS, PiiRedactingFilter, pii_redact, pii_redact_json


def test_each_kind_gets_its_placeholder_in_every_language() -> None:
    assert pii_redact("Write to anna.k@example.com please") == "Write to [email] please"
    assert pii_redact("Appelez le 06 12 34 56 78 demain") == "Appelez le [phone] demain"
    assert pii_redact("Rufen Sie +49 170 1234567 an") == "Rufen Sie [phone] an"
    assert pii_redact("IBAN DE89 3704 0044 0532 0130 00 bitte") == "IBAN [iban] bitte"
    assert pii_redact("tarjeta 4532 0151 1283 0366, gracias") == "tarjeta [card], gracias"


def test_look_alikes_stay_as_typed() -> None:
    for text in [
        "Order 2024-118734 of 12/03/2024 at 14:30 cost 1 299,00 € (postcode 75011)",
        "Tracking 1Z999AA10123456784, version 10.0.19045.3803",
        "Card 4532 0151 1283 0367 fails Luhn; IBAN DE89 3704 0044 0532 0130 01 its checksum",
        "Bestellnummer 40019283, Rechnung vom 12.03.2024",
    ]:
        assert pii_redact(text) == text


def test_json_values_are_redacted_keys_kept() -> None:
    value = {"answer": "mail x.y@example.org", "n": 3, "list": ["call 020 7946 0958"]}
    assert pii_redact_json(value) == {"answer": "mail [email]", "n": 3, "list": ["call [phone]"]}


def test_the_log_filter_redacts_the_formatted_message() -> None:
    record = logging.LogRecord(
        "t", logging.INFO, __file__, 1, "visitor wrote %s", ("a@b.io",), None
    )
    assert PiiRedactingFilter().filter(record)
    assert record.getMessage() == "visitor wrote [email]"


def test_the_settings_default_regions_are_the_redactors() -> None:
    assert tuple(settings.PARLEY_REDACTION_PHONE_REGIONS) == DEFAULT_PHONE_REGIONS
