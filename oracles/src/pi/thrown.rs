//! How pi fails: the stage of the pipeline and the error the JavaScript throws there. A throw is
//! an outcome the models report, never a crash of ctxfuzz.

use std::fmt;

/// A stage of pi's pipeline, named as the vectors file and `render --batch` name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    ConvertToLlm,
    TransformMessages,
    /// pi-ai's Anthropic request builder (`convertMessages` / `buildParams`).
    Anthropic,
    /// pi-ai's openai-completions request builder (`convertMessages`).
    OpenAiCompletions,
    /// pi-ai's openai-responses request builder (`convertResponsesMessages`).
    OpenAiResponses,
    /// pi-ai's google-generative-ai request builder (`convertMessages` of `google-shared.js`).
    GoogleGenerativeAi,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Stage::ConvertToLlm => "convertToLlm",
            Stage::TransformMessages => "transformMessages",
            Stage::Anthropic => "anthropic",
            Stage::OpenAiCompletions => "openai-completions",
            Stage::OpenAiResponses => "openai-responses",
            Stage::GoogleGenerativeAi => "google-generative-ai",
        })
    }
}

/// "pi itself would throw at stage S": the error as the JavaScript prints it, e.g.
/// `TypeError: assistantMsg.content.flatMap is not a function`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thrown {
    pub stage: Stage,
    pub error: String,
}

impl Thrown {
    pub(crate) fn new(stage: Stage, error: String) -> Self {
        Thrown { stage, error }
    }
}

impl fmt::Display for Thrown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "pi itself would throw at stage {}: {}",
            self.stage, self.error
        )
    }
}

impl std::error::Error for Thrown {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_throw_reads_as_pi_s_error_at_its_stage() {
        let thrown = Thrown::new(
            Stage::TransformMessages,
            "TypeError: x is not iterable".to_string(),
        );
        assert_eq!(
            thrown.to_string(),
            "pi itself would throw at stage transformMessages: TypeError: x is not iterable"
        );
    }
}
