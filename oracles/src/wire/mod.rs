//! The provider wire: the Anthropic request builder and validator; the OpenAI chat validator.

pub mod openai;
