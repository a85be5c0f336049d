"""The audit trail (django-auditlog into audit.AuditEntry) and personal data: retention, redaction,
erasure."""

from __future__ import annotations

from config.env import env_bool, env_int, env_list

AUDITLOG_LOGENTRY_MODEL = "audit.AuditEntry"
# auditlog's migrations would create its own (swapped-out) entry table, which a test flush then cannot
# truncate (it references content types); without migrations no table is made for a swapped model.
MIGRATION_MODULES = {"auditlog": None}
AUDITLOG_STORE_JSON_CHANGES = True  # diffs keep their types (numbers, lists), not their str()
# Audit entries older than this many days are deleted by the periodic task (audit.entries_prune).
PARLEY_AUDIT_RETENTION_DAYS = env_int("PARLEY_AUDIT_RETENTION_DAYS", 365, minimum=1)
# true behind a proxy that appends the client's address to X-Forwarded-For: the audit records that
# header's last address (the proxy's own addition) rather than the proxy's REMOTE_ADDR.
PARLEY_AUDIT_FORWARDED_FOR = env_bool("PARLEY_AUDIT_FORWARDED_FOR", False)
# Where personal data is redacted (core.redaction), phone numbers written without a country code
# are recognised when valid in one of these regions (ISO 3166 codes); international ones always.
PARLEY_REDACTION_PHONE_REGIONS = env_list(
    "PARLEY_REDACTION_PHONE_REGIONS", ["US", "GB", "FR", "DE", "ES", "IT", "NL", "BE", "CH", "AT"]
)
# After a visitor's erasure, how long Valkey's append-only file rewrite and snapshot are each waited
# for (privacy.services.valkey_files): past it the erasure is done with a note, not failed.
PRIVACY_VALKEY_REWRITE_TIMEOUT_SECONDS = env_int(
    "PRIVACY_VALKEY_REWRITE_TIMEOUT_SECONDS", 60, minimum=1
)
