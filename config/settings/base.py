"""The process: its folders, debug and hosts, the secret key, Django's apps, middleware, templates,
language, static and media files, and logging."""

from __future__ import annotations

import secrets
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_list, env_str

# config/settings/base.py: the project is three folders up.
BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(env_str("PARLEY_VAR_DIR") or BASE_DIR / "var").resolve()

DEBUG = env_bool("DEBUG", False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])


def _secret_key() -> str:
    """An env-provided key, or one generated once and kept in var/ for the embedded setup."""
    configured = env_str("SECRET_KEY")
    if configured:
        return configured
    key_file = VAR_DIR / "secret_key"
    try:
        if key_file.exists():
            return key_file.read_text().strip()
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        key = secrets.token_urlsafe(50)
        key_file.write_text(key)
        key_file.chmod(0o600)
    except OSError as exc:
        raise ImproperlyConfigured(
            f"Parley keeps its generated secret key and embedded services under {VAR_DIR}, but cannot write there "
            f"({exc.strerror}). Make the folder writable, set PARLEY_VAR_DIR to a writable folder, or set SECRET_KEY."
        ) from exc
    return key


SECRET_KEY = _secret_key()

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",  # OpClass in index expressions (rag's HNSW indexes), search lookups
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served from this package: /api/docs/ needs no CDN
    "core",
    "textmodels",
    "guard",
    "bots",
    "prompt_context",
    "prompts",
    "rag",
    "conversations",
    "sources",
    "streams",
    "handoff",
    "api",
    "agent",
    "widget",
    "insights",
    "privacy",
    "connectors",
    "sso",
    # The audit trail (audit/): django-auditlog's receivers and diff, django-pgtrigger's append-only
    # trigger; audit.AuditEntry replaces auditlog's own entry model.
    "pgtrigger",
    "auditlog",
    "audit",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "core.middleware.ContentSecurityPolicyMiddleware",  # the CSP of every HTML page (one place)
    "api.middleware.ApiEdgeMiddleware",  # CORS, body cap and JSON errors on /api/
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "audit.context.AuditContextMiddleware",  # who and from where, for the audit entries written
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "core.middleware.SyncChainMiddleware",  # last: the chain runs in one thread under ASGI (see its docstring)
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "sso.context_processors.sign_in",  # the login page's SSO button, passwords on or off
            ],
        },
    },
]

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = VAR_DIR / "static"
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env_str("PARLEY_MEDIA_ROOT") or VAR_DIR / "media")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    # Personal data (e-mail addresses, phone numbers, IBANs, card numbers) leaves no log in clear
    # (core.redaction; docs/privacy.md); PARLEY_LOG_REDACTION=false keeps logs as written.
    "filters": {
        "pii": {"()": "core.redaction.PiiRedactingFilter"},
        # A refused page (403) in one line, not a traceback (core.request_log).
        "forbidden": {"()": "core.request_log.ForbiddenOneLine"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["pii"] if env_bool("PARLEY_LOG_REDACTION", True) else [],
        }
    },
    "loggers": {"django.request": {"filters": ["forbidden"]}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}
