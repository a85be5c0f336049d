"""Parley's settings (DJANGO_SETTINGS_MODULE is `config.settings`): every value is read from the environment
through config.env, each part of this package reading its own variables.

With DATABASE_URL and REDIS_URL unset, Parley starts (or attaches to) its embedded PostgreSQL+pgvector and
Valkey under PARLEY_VAR_DIR (`services`; see core.embedded).
"""

# Django reads a settings module's upper-case names: this package is the parts' union, in the order they
# depend on one another (services needs base's VAR_DIR, workers services' REDIS_URL). Star imports carry
# their public names only; each part keeps its helpers private (`_name`).
from config.settings.api import *  # noqa: F403
from config.settings.base import *  # noqa: F403
from config.settings.knowledge import *  # noqa: F403
from config.settings.llm import *  # noqa: F403
from config.settings.privacy import *  # noqa: F403
from config.settings.retrieval import *  # noqa: F403
from config.settings.security import *  # noqa: F403
from config.settings.services import *  # noqa: F403
from config.settings.sources import *  # noqa: F403
from config.settings.sso import *  # noqa: F403
from config.settings.workers import *  # noqa: F403
