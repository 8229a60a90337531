//! The orphan sweep (pi-condense `sweepOrphanToolResults`) and its barrier rules.
