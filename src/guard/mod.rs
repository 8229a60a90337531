//! A deterministic model of one pi session run loop, the turn-end guard variants, and schedules.
