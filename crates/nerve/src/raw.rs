//! Untyped topics for the Python and C fronts (work in progress).
