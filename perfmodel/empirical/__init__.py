"""Empirical scaling: predict larger runs from a few measured ones, with no model of the code.

:mod:`~perfmodel.empirical.forms` lists the candidate terms (each a cost with a physical
meaning), :mod:`~perfmodel.empirical.fit` fits them with non-negative coefficients and picks a
form by cross-validation in the direction of extrapolation, :mod:`~perfmodel.empirical.series`
reads timing series.
"""
