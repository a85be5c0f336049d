"""The insights admin: the analytics page, the turns behind its figures, gap clusters, evaluations."""

from insights.admin import analytics, evaluation, evaluation_runs, knowledge, turns

__all__ = ["analytics", "evaluation", "evaluation_runs", "knowledge", "turns"]
