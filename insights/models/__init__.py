"""The insights app's state: gap clusters, evaluation sets and runs, and the knowledge-gap loop."""

from insights.models.evaluation import (
    EvaluationCase,
    EvaluationResult,
    EvaluationRun,
    EvaluationSet,
)
from insights.models.gaps import AnalyzedTurn, GapCluster, GapClustering
from insights.models.knowledge import FaqCandidate
from insights.models.rollups import RollupWatermark, TurnRollup

__all__ = [
    "AnalyzedTurn",
    "EvaluationCase",
    "EvaluationResult",
    "EvaluationRun",
    "EvaluationSet",
    "FaqCandidate",
    "GapCluster",
    "GapClustering",
    "RollupWatermark",
    "TurnRollup",
]
