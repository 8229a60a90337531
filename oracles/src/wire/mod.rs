//! The provider wire: pi-ai's Anthropic request builder and the Anthropic API's validation rules.

pub mod anthropic;
