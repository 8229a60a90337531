//! [`Object`]: an object's fields, each key once, in a boxed slice.

use foldhash::{HashMap, HashMapExt};

use super::{JsValue, Str};

/// An object's fields, each key once, in the order they first appeared.
#[derive(Debug, Clone, Default)]
pub struct Object<'a>(pub(super) Box<[(Str<'a>, JsValue<'a>)]>);

/// Objects up to this many fields are checked for a repeated key pair by pair; larger ones
/// through a hash map, so a hostile object of a million keys is read in linear time.
const PAIRWISE_LIMIT: usize = 16;

/// Whether a key of `fields` stands twice, compared pair by pair.
fn repeats_a_key(fields: &[(Str<'_>, JsValue<'_>)]) -> bool {
    (1..fields.len()).any(|i| {
        fields[..i]
            .iter()
            .any(|(earlier, _)| *earlier == fields[i].0)
    })
}

impl<'a> Object<'a> {
    pub fn new() -> Self {
        Object(Box::default())
    }

    /// The fields as read, a repeated key keeping its first position and its last value.
    pub fn from_fields(mut fields: Vec<(Str<'a>, JsValue<'a>)>) -> Self {
        if fields.len() <= PAIRWISE_LIMIT && !repeats_a_key(&fields) {
            return Object(fields.into_boxed_slice());
        }
        // Where each key first appears; `None` when every key is unique.
        let mut first_at: HashMap<&str, usize> = HashMap::with_capacity(fields.len());
        let firsts: Vec<usize> = fields
            .iter()
            .enumerate()
            .map(|(i, (key, _))| *first_at.entry(&**key).or_insert(i))
            .collect();
        drop(first_at);
        if firsts.iter().enumerate().all(|(i, &first)| first == i) {
            return Object(fields.into_boxed_slice());
        }
        // Each field's position in the deduplicated vector, by its index in `fields`.
        let mut position = vec![0; fields.len()];
        let mut unique: Vec<(Str<'a>, JsValue<'a>)> = Vec::with_capacity(fields.len());
        for (i, (key, value)) in fields.drain(..).enumerate() {
            if firsts[i] == i {
                position[i] = unique.len();
                unique.push((key, value));
            } else {
                unique[position[firsts[i]]].1 = value;
            }
        }
        Object(unique.into_boxed_slice())
    }

    /// Fields whose keys are distinct by construction (a generator's literal keys), kept as they
    /// are: [`Object::from_fields`]' search for a repeated key is a sixth of a generated case's
    /// building, so it is left to debug builds here.
    pub fn from_distinct_fields(fields: Vec<(Str<'a>, JsValue<'a>)>) -> Self {
        debug_assert!(!repeats_a_key(&fields), "a repeated key");
        Object(fields.into_boxed_slice())
    }

    pub fn get(&self, key: &str) -> Option<&JsValue<'a>> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut JsValue<'a>> {
        self.0.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// `object[key] = value`: replaces the value in place, or appends the field.
    pub fn insert(&mut self, key: impl Into<Str<'a>>, value: JsValue<'a>) {
        let key = key.into();
        match self.0.iter_mut().find(|(k, _)| *k == key) {
            Some(slot) => slot.1 = value,
            None => self.edit(|fields| fields.push((key, value))),
        }
    }

    /// `{...object, [key]: value}`: the value replaced in its place, or the field appended. The
    /// value it replaces is never copied (a message's content is most of the message).
    pub fn with(&self, key: impl Into<Str<'a>>, value: JsValue<'a>) -> Self {
        let key = key.into();
        let mut value = Some(value);
        let mut fields = Vec::with_capacity(self.0.len() + 1);
        for (k, old) in &self.0 {
            let new = if *k == key { value.take() } else { None };
            fields.push((k.clone(), new.unwrap_or_else(|| old.clone())));
        }
        fields.extend(value.map(|value| (key, value)));
        Object(fields.into_boxed_slice())
    }

    /// `{...self, ...over}`: each field of `self` with `over`'s value where `over` has its key,
    /// then `over`'s other fields in their order.
    pub fn spread(&self, over: &Object<'a>) -> Self {
        let mut fields: Vec<(Str<'a>, JsValue<'a>)> = self.0.to_vec();
        for (key, value) in &over.0 {
            match fields.iter_mut().find(|(k, _)| k == key) {
                Some(slot) => slot.1 = value.clone(),
                None => fields.push((key.clone(), value.clone())),
            }
        }
        Object(fields.into_boxed_slice())
    }

    /// `delete object[key]`.
    pub fn remove(&mut self, key: &str) {
        if let Some(at) = self.0.iter().position(|(k, _)| k == key) {
            self.edit(|fields| drop(fields.remove(at)));
        }
    }

    /// Changes the fields as a vector (a boxed slice cannot grow or shrink in place).
    fn edit(&mut self, change: impl FnOnce(&mut Vec<(Str<'a>, JsValue<'a>)>)) {
        let mut fields = std::mem::take(&mut self.0).into_vec();
        change(&mut fields);
        self.0 = fields.into_boxed_slice();
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &JsValue<'a>)> {
        self.0.iter().map(|(k, v)| (&**k, v))
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}

impl<'a, K: Into<Str<'a>>> FromIterator<(K, JsValue<'a>)> for Object<'a> {
    fn from_iter<I: IntoIterator<Item = (K, JsValue<'a>)>>(fields: I) -> Self {
        Object::from_fields(fields.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }
}
