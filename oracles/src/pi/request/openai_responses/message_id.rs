//! The id and phase of an assistant's `message` item in an openai-responses body, read from the
//! text block's `textSignature` (`parseTextSignature`): pi keeps the Responses API's message id
//! there, as `{"v":1,"id":…,"phase"?:…}` JSON or (older sessions) the plain id.
//!
//! A text without one gets `msg_pi_<n>` (`msg_pi_<n>_<k>` for the k-th text block of the message,
//! n counting the messages sent before it), and an id over 64 UTF-16 units, which OpenAI refuses,
//! becomes `msg_` and a hash of it.

use super::throw;
use crate::js::{self, truthy};
use crate::js_string;
use crate::js_value::JsValue;
use crate::json_text;
use crate::pi::Thrown;
use crate::pi::request::short_hash::short_hash;

/// OpenAI's limit on an item id.
const MAX_ID: usize = 64;

/// What the message item carries from its text block.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct MessageId {
    pub id: String,
    pub phase: Option<Phase>,
}

/// The phases pi passes on (any other is dropped), written as the signature names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::EnumString, strum::IntoStaticStr)]
#[strum(serialize_all = "snake_case")]
pub(super) enum Phase {
    Commentary,
    FinalAnswer,
}

/// The item's id and phase for the `block`-th text block of message `message` (`msgIndex`);
/// `Err` is what pi throws on a truthy signature that is not a string.
pub(super) fn message_id(
    signature: Option<&JsValue>,
    message: usize,
    block: usize,
) -> Result<MessageId, Thrown> {
    let (id, phase) = match parsed(signature)? {
        Some((id, phase)) => (id, phase),
        None => (String::new(), None),
    };
    let id = if id.is_empty() {
        match block {
            0 => format!("msg_pi_{message}"),
            _ => format!("msg_pi_{message}_{block}"),
        }
    } else if js_string::utf16_len(&id) > MAX_ID {
        format!("msg_{}", short_hash(&id))
    } else {
        id
    };
    Ok(MessageId { id, phase })
}

/// `parseTextSignature`: the id and phase of a `{"v":1,"id":"…"}` signature, else the whole
/// signature as the id; `None` for a falsy one.
fn parsed(signature: Option<&JsValue>) -> Result<Option<(String, Option<Phase>)>, Thrown> {
    if !truthy(signature) {
        return Ok(None);
    }
    let Some(JsValue::String(text)) = signature else {
        return Err(throw("TypeError: signature.startsWith is not a function"));
    };
    if text.starts_with('{')
        && let Ok(JsValue::Object(fields)) = json_text::parse_borrowed(text)
        && fields.get("v").and_then(JsValue::as_f64) == Some(1.0)
        && let Some(JsValue::String(id)) = fields.get("id")
    {
        let phase = fields.get("phase").and_then(JsValue::as_str);
        let phase = phase.and_then(|phase| phase.parse().ok());
        return Ok(Some((id.to_string(), phase)));
    }
    Ok(Some((js::to_js_string(signature), None)))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{MessageId, Phase, message_id};
    use crate::js_value::JsValue;
    use crate::pi::{Stage, Thrown};

    fn id_of(
        signature: serde_json::Value,
        message: usize,
        block: usize,
    ) -> Result<MessageId, Thrown> {
        message_id(Some(&JsValue::from(&signature)), message, block)
    }

    fn plain(id: &str) -> MessageId {
        MessageId {
            id: id.into(),
            phase: None,
        }
    }

    #[test]
    fn a_text_without_a_signature_is_numbered_by_message_and_block() {
        assert_eq!(message_id(None, 3, 0), Ok(plain("msg_pi_3")));
        assert_eq!(message_id(None, 3, 2), Ok(plain("msg_pi_3_2")));
        assert_eq!(id_of(json!(""), 0, 1), Ok(plain("msg_pi_0_1")));
        // An empty id in the JSON form is no id either.
        assert_eq!(
            id_of(json!(r#"{"v":1,"id":""}"#), 4, 0),
            Ok(plain("msg_pi_4"))
        );
    }

    #[test]
    fn the_v1_json_form_gives_its_id_and_a_known_phase() {
        assert_eq!(
            id_of(json!(r#"{"v":1,"id":"msg_a","phase":"commentary"}"#), 0, 0),
            Ok(MessageId {
                id: "msg_a".into(),
                phase: Some(Phase::Commentary)
            })
        );
        assert_eq!(
            id_of(
                json!(r#"{"v":1.0,"id":"msg_a","phase":"final_answer"}"#),
                0,
                0
            ),
            Ok(MessageId {
                id: "msg_a".into(),
                phase: Some(Phase::FinalAnswer)
            })
        );
        assert_eq!(
            id_of(json!(r#"{"v":1,"id":"msg_a","phase":"other"}"#), 0, 0),
            Ok(plain("msg_a"))
        );
    }

    /// Any other signature, JSON or not, is the id itself.
    #[test]
    fn any_other_signature_is_the_id() {
        assert_eq!(id_of(json!("msg_b"), 0, 0), Ok(plain("msg_b")));
        assert_eq!(
            id_of(json!(r#"{"v":2,"id":"x"}"#), 0, 0),
            Ok(plain(r#"{"v":2,"id":"x"}"#))
        );
        assert_eq!(
            id_of(json!(r#"{"v":1,"id":5}"#), 0, 0),
            Ok(plain(r#"{"v":1,"id":5}"#))
        );
        assert_eq!(id_of(json!("{broken"), 0, 0), Ok(plain("{broken")));
        assert_eq!(
            id_of(json!(r#"[{"v":1,"id":"x"}]"#), 0, 0),
            Ok(plain(r#"[{"v":1,"id":"x"}]"#))
        );
    }

    /// 64 units are kept; 65 become `msg_` and pi-ai's `shortHash` of the id (as the real pi
    /// writes it, recorded through the conformance bridge).
    #[test]
    fn an_id_over_64_units_is_hashed() {
        let kept = "m".repeat(64);
        assert_eq!(id_of(json!(kept), 0, 0), Ok(plain(&kept)));
        assert_eq!(
            id_of(json!("m".repeat(65)), 0, 0),
            Ok(plain("msg_4tg0y8defk0h"))
        );
    }

    #[test]
    fn a_signature_that_is_not_a_string_throws() {
        assert_eq!(
            id_of(json!(5), 0, 0),
            Err(Thrown::new(
                Stage::OpenAiResponses,
                "TypeError: signature.startsWith is not a function".into()
            ))
        );
        assert_eq!(id_of(json!(false), 2, 0), Ok(plain("msg_pi_2")));
    }
}
