//! Reading a [`JsValue`] with serde: strings and keys borrowed from the text where it holds them
//! without escapes, each container built at its exact size.

use std::fmt;

use serde::de::{Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

use super::{JsValue, Object, Str};

impl<'de> Deserialize<'de> for JsValue<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Reader::default().deserialize(deserializer)
    }
}

/// Reads values one after another with one [`Scratch`], kept between them: the items of a long
/// array read one at a time cost no growth of their own (a scratch of its own per message was a
/// twentieth of reading a transcript's messages).
#[derive(Default)]
pub(crate) struct Reader<'de> {
    scratch: Scratch<'de>,
}

impl<'de> DeserializeSeed<'de> for &mut Reader<'de> {
    type Value = JsValue<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<JsValue<'de>, D::Error> {
        Builder {
            scratch: &mut self.scratch,
        }
        .deserialize(deserializer)
    }
}

/// The items and fields of the arrays and objects being read, innermost last: each container is
/// moved out of here into a boxed slice of exactly its size, so a document costs one allocation
/// per container and no growth (a growing vector per object was a fifth of the parse).
#[derive(Default)]
struct Scratch<'de> {
    items: Vec<JsValue<'de>>,
    fields: Vec<(Str<'de>, JsValue<'de>)>,
}

struct Builder<'s, 'de> {
    scratch: &'s mut Scratch<'de>,
}

impl<'de> DeserializeSeed<'de> for Builder<'_, 'de> {
    type Value = JsValue<'de>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Builder<'_, 'de> {
    type Value = JsValue<'de>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("any valid JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Self::Value, E> {
        Ok(JsValue::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Self::Value, E> {
        Ok(JsValue::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Self::Value, E> {
        Ok(JsValue::Number(n.into()))
    }

    fn visit_f64<E>(self, x: f64) -> Result<Self::Value, E> {
        Ok(Number::from_f64(x).map_or(JsValue::Null, JsValue::Number))
    }

    fn visit_borrowed_str<E>(self, text: &'de str) -> Result<Self::Value, E> {
        Ok(JsValue::String(Str::from(text)))
    }

    fn visit_str<E>(self, text: &str) -> Result<Self::Value, E> {
        Ok(JsValue::String(Str::owned(text.into())))
    }

    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(JsValue::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let start = self.scratch.items.len();
        while let Some(item) = seq.next_element_seed(Builder {
            scratch: self.scratch,
        })? {
            self.scratch.items.push(item);
        }
        Ok(JsValue::Array(self.scratch.items.drain(start..).collect()))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let start = self.scratch.fields.len();
        while let Some(Key(key)) = map.next_key()? {
            let value = map.next_value_seed(Builder {
                scratch: self.scratch,
            })?;
            self.scratch.fields.push((key, value));
        }
        let fields = self.scratch.fields.drain(start..).collect();
        Ok(JsValue::Object(Object::from_fields(fields)))
    }
}

/// A key, borrowed when the text holds it without escapes.
struct Key<'de>(Str<'de>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;

            fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
                formatter.write_str("a string key")
            }

            fn visit_borrowed_str<E>(self, key: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Str::from(key)))
            }

            fn visit_str<E>(self, key: &str) -> Result<Key<'de>, E> {
                Ok(Key(Str::owned(key.into())))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}
