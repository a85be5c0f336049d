"""Per-workspace fusion calibration: pairs (`pairs`), measurements and the choice (`measure`), the stored
result and its background refresh (`service`)."""
