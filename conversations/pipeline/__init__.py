"""The answer pipeline: a chat turn (`turn_answer`), a rag_search (`rag_search_answer`), and the stage-by-stage
run they share (`answer_run`, also shown by the admin's Try-it console)."""

from conversations.pipeline.rag_search import rag_search_answer
from conversations.pipeline.results import turn_result_json
from conversations.pipeline.run import PipelineRun, answer_run
from conversations.pipeline.turns import TurnResult, turn_answer

__all__ = [
    "PipelineRun",
    "TurnResult",
    "answer_run",
    "rag_search_answer",
    "turn_answer",
    "turn_result_json",
]
