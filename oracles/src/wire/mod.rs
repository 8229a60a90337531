//! The providers' rules on a request body: the Anthropic Messages API's and OpenAI chat's. What
//! builds the body (pi-ai's request builder) is pi's code and lives in [`crate::pi::request`].

pub mod anthropic;
pub mod openai;
