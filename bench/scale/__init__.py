"""bench/scale: tenant-isolated search layouts against the plain one-table baseline, at a chosen size."""
