"""Conversations between a visitor and a bot (and, after a handoff, a human agent), the audit of every
answer (chat turns and rag_search calls), the attacks recorded, and the curated answers.

Every model is imported here so the app registry sees them; other code imports them from here.
"""

from conversations.models.audit import AnswerAudit as AnswerAudit
from conversations.models.audit import TurnStatus as TurnStatus
from conversations.models.conversation import Conversation as Conversation
from conversations.models.curated import CuratedAnswer as CuratedAnswer
from conversations.models.curated import CuratedAnswerPolicy as CuratedAnswerPolicy
from conversations.models.rag_search import EXECUTION_ID_PATTERN as EXECUTION_ID_PATTERN
from conversations.models.rag_search import EXECUTION_ID_PREFIX as EXECUTION_ID_PREFIX
from conversations.models.rag_search import RagSearchExecution as RagSearchExecution
from conversations.models.rag_search import execution_id_new as execution_id_new
from conversations.models.turn import SecurityEvent as SecurityEvent
from conversations.models.turn import Turn as Turn
