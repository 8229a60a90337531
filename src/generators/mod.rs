//! One description of transcript shapes, with its `arbitrary` and proptest faces.
