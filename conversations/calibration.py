"""The LLM paraphraser of fusion calibration (`rag.retrieval.calibration.pairs`): rag cannot render prompt
templates (prompts sits beside it), so this app, above both, lends it one at start-up (`apps.py`).

One call per batch of passages through the gateway (which releases the DB connection during the call);
an error or an unusable output returns None and the calibration keeps those raw spans.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence

from core.llm.errors import LLMError
from core.llm.gateway import llm_complete
from core.llm.types import LLMEndpoint
from prompts.engine.environment import prompt_environment

logger = logging.getLogger(__name__)

TEMPLATE = "calibration_paraphrase.jinja"
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)


def calibration_paraphrase(texts: Sequence[str], language: str) -> list[str] | None:
    """One question per passage, in order, or None."""
    system = prompt_environment().get_template(TEMPLATE).render({"locale": language or "en"})
    messages = [
        {"role": "system", "content": system},
        {"role": "user", "content": json.dumps(list(texts), ensure_ascii=False)},
    ]
    try:
        raw = llm_complete(endpoint=LLMEndpoint.from_settings(), messages=messages).text
    except LLMError as error:
        logger.warning("calibration paraphrase failed: %s", error.code)
        return None
    match = _OBJECT.search(raw)
    try:
        data = json.loads(match.group(0)) if match else None
    except ValueError:
        return None
    questions = data.get("questions") if isinstance(data, dict) else None
    if not isinstance(questions, list) or not all(isinstance(q, str) for q in questions):
        return None
    return [question.strip() for question in questions]
