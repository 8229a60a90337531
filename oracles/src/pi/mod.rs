//! Models of pi's `convertToLlm` and `transformMessages`, per behaviour variant.

pub mod session;
