//! JavaScript value semantics (truthiness, `trim`, UTF-16 code units) used by the pi models.
