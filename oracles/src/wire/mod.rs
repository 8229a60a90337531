//! The provider wire: pi-ai's Anthropic request builder and the Anthropic API's validation rules;
//! the OpenAI chat validator.

pub mod anthropic;
pub mod openai;
