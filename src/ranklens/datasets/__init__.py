"""Datasets shipped with ranklens. See :mod:`ranklens.datasets.demo` for the demo collection."""
