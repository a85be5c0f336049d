"""The whole-sentence support minimum, fitted on the tune half of bench/faithfulness (`fit`) and shipped
as calibration.json beside this module."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

CALIBRATION_FILE = Path(__file__).with_name("calibration.json")


@dataclass(frozen=True)
class Calibration:
    support_min: float
    fitted_on: str


@functools.cache
def calibration_load(path: Path = CALIBRATION_FILE) -> Calibration:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return Calibration(
            support_min=float(data["support_min"]), fitted_on=str(data.get("fitted_on", ""))
        )
    except (OSError, ValueError, KeyError):
        return Calibration(support_min=0.0, fitted_on="none")
