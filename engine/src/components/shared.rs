//! The text a component keeps from its block (question texts, options, labels, ids): most of it
//! is a slice of the block's JSON text, a string without escapes, so it is kept as a slice of
//! one shared copy of that text rather than copied out string by string.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A component's text: a slice of its block's JSON text, or, for a string that held escapes or
/// was rescued, its own copy. Reads as a `&str`.
#[derive(Clone)]
pub struct Shared(Repr);

#[derive(Clone)]
enum Repr {
    /// `text[start..end]`.
    Slice {
        text: Arc<str>,
        start: u32,
        end: u32,
    },
    Own(Box<str>),
}

impl Shared {
    /// `text[start..end]`, or a copy when the offsets do not fit the slice's fields. Offsets
    /// that are not a slice of `text` read as an empty string.
    pub fn slice(text: &Arc<str>, start: usize, end: usize) -> Shared {
        match (u32::try_from(start), u32::try_from(end)) {
            (Ok(start), Ok(end)) => Shared(Repr::Slice {
                text: Arc::clone(text),
                start,
                end,
            }),
            _ => Shared::from(text.get(start..end).unwrap_or_default()),
        }
    }

    pub fn as_str(&self) -> &str {
        match &self.0 {
            Repr::Slice { text, start, end } => {
                text.get(*start as usize..*end as usize).unwrap_or_default()
            }
            Repr::Own(s) => s,
        }
    }
}

impl Deref for Shared {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Shared {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl std::borrow::Borrow<str> for Shared {
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for Shared {
    fn from(s: &str) -> Shared {
        Shared(Repr::Own(s.into()))
    }
}

impl From<String> for Shared {
    fn from(s: String) -> Shared {
        Shared(Repr::Own(s.into_boxed_str()))
    }
}

impl fmt::Debug for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl PartialEq for Shared {
    fn eq(&self, other: &Shared) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Shared {}

impl std::hash::Hash for Shared {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialEq<str> for Shared {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Shared {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Shared {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<Shared> for &str {
    fn eq(&self, other: &Shared) -> bool {
        *self == other.as_str()
    }
}

impl PartialEq<Shared> for String {
    fn eq(&self, other: &Shared) -> bool {
        self == other.as_str()
    }
}

/// Written escaped as [`crate::html::Text`] writes a string (maud would otherwise format it
/// through `Display`, escaping it byte by byte).
impl maud::Render for Shared {
    fn render_to(&self, out: &mut String) {
        crate::html::escape_into(self.as_str(), out);
    }
}

impl serde::Serialize for Shared {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_reads_as_its_part_of_the_text_and_compares_as_a_copy_would() {
        let text: Arc<str> = Arc::from("{\"a\": \"héllo\"}");
        let start = text.find('h').unwrap();
        let s = Shared::slice(&text, start, start + "héllo".len());
        assert_eq!(s.as_str(), "héllo");
        assert_eq!(s, Shared::from("héllo"));
        assert_eq!(s, "héllo");
        assert_eq!(format!("{s}|{s:?}"), "héllo|\"héllo\"");
        let hostile = Shared::from("a\"b<c>&'d");
        assert_eq!(
            maud::html! { p title=(hostile) { (hostile) } }.into_string(),
            maud::html! { p title=(hostile.as_str()) { (hostile.as_str()) } }.into_string()
        );
        // Offsets that are not a slice of the text read as nothing rather than a panic.
        assert_eq!(Shared::slice(&text, start + 1, start + 2).as_str(), "");
    }
}
