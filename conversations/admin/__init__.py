"""Read-only admin for the answer audit: turns, security events and rag_search executions. Nothing here
can be added, changed or deleted: it is a record. Importing the parts registers them."""

from conversations.admin import records as records
from conversations.admin.readonly import ReadOnlyAdmin as ReadOnlyAdmin
from conversations.admin.turns import TurnAdmin as TurnAdmin
