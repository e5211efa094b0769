//! Internal: nodes and the scheduler (work in progress).
