//! The four pi versions whose provider boundary behaves differently, and how a version string
//! picks one.

use std::fmt;

use crate::error::Error;

/// A range of pi versions whose `convertToLlm` / `transformMessages` / Anthropic conversion behave
/// the same. Ordered oldest first, so `v >= PiVersion::From086` reads "0.86 or later".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum PiVersion {
    /// Below 0.80.4: no null-content normalisation, cross-model thinking becomes text.
    Before0804,
    /// 0.80.4 to 0.85.x: `null`/missing `content` becomes `[]` before anything else.
    From0804,
    /// 0.86 to 1.2.x: `system` messages pass `convertToLlm` and are held while calls are open.
    From086,
    /// 1.3.0 and later: cross-model thinking dropped; error results' images sent after the results.
    #[default]
    From130,
}

impl PiVersion {
    /// Every pi version, oldest first.
    pub const ALL: [PiVersion; 4] = [
        PiVersion::Before0804,
        PiVersion::From0804,
        PiVersion::From086,
        PiVersion::From130,
    ];

    /// Picks the [`PiVersion`] of any pi release: `1.6.0`, `v0.87.1`, `0.81`, `1.3.0-beta.1`.
    ///
    /// A leading `v`, missing minor/patch components (read as 0) and a `+build` suffix are
    /// accepted. A `-prerelease` sorts before its release, as in semver, so `1.3.0-beta.1` is a
    /// 1.2.x-era build and gets that pi version. Anything else is an error naming the input.
    pub fn from_version(version: &str) -> Result<PiVersion, Error> {
        let (major, minor, patch, prerelease) =
            parse_version(version).ok_or_else(|| Error::InvalidPiVersion(version.to_string()))?;
        // A prerelease of X.Y.Z sorts just below X.Y.Z: compare against (X.Y.Z, 0) vs (X.Y.Z, 1).
        let key = (major, minor, patch, u8::from(!prerelease));
        Ok(if key >= (1, 3, 0, 1) {
            PiVersion::From130
        } else if key >= (0, 86, 0, 1) {
            PiVersion::From086
        } else if key >= (0, 80, 4, 1) {
            PiVersion::From0804
        } else {
            PiVersion::Before0804
        })
    }

    /// The pi version of a golden vector, by the `"variant"` key of `vectors.expected.jsonl`:
    /// `current` (the release the vectors were last verified against) or a version such as
    /// `0.81.1`; anything else is an error naming it. Every reader of the vectors file picks the
    /// model through this.
    pub fn of_vector(name: &str) -> Result<PiVersion, Error> {
        if name == "current" {
            return Ok(PiVersion::From130);
        }
        PiVersion::from_version(name)
    }

    /// The published version this pi version's model is checked against by the conformance test.
    pub fn checked_against(self) -> &'static str {
        match self {
            PiVersion::Before0804 => "0.79.0",
            PiVersion::From0804 => "0.81.1",
            PiVersion::From086 => "0.87.1",
            PiVersion::From130 => "1.6.0",
        }
    }

    /// `null`/missing message content is replaced by `[]` at the start of `transformMessages`.
    pub(crate) fn normalizes_null_content(self) -> bool {
        self >= PiVersion::From0804
    }

    /// `system` messages survive `convertToLlm` and are transparent to tool-call accounting.
    pub(crate) fn has_system_role(self) -> bool {
        self >= PiVersion::From086
    }

    /// The Anthropic converter keeps a signed thinking block whose text is blank.
    pub(crate) fn keeps_signed_blank_thinking(self) -> bool {
        self >= PiVersion::From0804
    }

    /// Thinking from another model is dropped (before 1.3.0 it became a text block).
    pub(crate) fn drops_cross_model_thinking(self) -> bool {
        self >= PiVersion::From130
    }

    /// The Anthropic converter moves an error result's images after all results of the turn.
    pub(crate) fn splits_error_result_images(self) -> bool {
        self >= PiVersion::From130
    }
}

impl fmt::Display for PiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PiVersion::Before0804 => "<0.80.4",
            PiVersion::From0804 => "0.80.4 to 0.85.x",
            PiVersion::From086 => "0.86 to 1.2.x",
            PiVersion::From130 => "1.3.0+",
        })
    }
}

/// `(major, minor, patch, has_prerelease)`, or `None` for anything that is not a version.
fn parse_version(version: &str) -> Option<(u64, u64, u64, bool)> {
    let text = version.trim();
    let text = text.strip_prefix('v').unwrap_or(text);
    let text = text.split_once('+').map_or(text, |(core, _build)| core);
    let (core, prerelease) = match text.split_once('-') {
        Some((core, pre)) if !pre.is_empty() => (core, true),
        Some(_) => return None,
        None => (text, false),
    };
    let mut numbers = [0u64; 3];
    let parts: Vec<&str> = core.split('.').collect();
    if parts.len() > 3 {
        return None;
    }
    for (slot, part) in numbers.iter_mut().zip(&parts) {
        // `u64::from_str` takes ASCII digits and a leading `+`, and every `+` went with the build
        // metadata above: this rejects an empty or non-numeric part.
        *slot = part.parse().ok()?;
    }
    Some((numbers[0], numbers[1], numbers[2], prerelease))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_pick_their_pi_version_at_the_changelog_boundaries() {
        for (version, pi_version) in [
            ("0.73.1", PiVersion::Before0804),
            ("0.79.0", PiVersion::Before0804),
            ("0.80.3", PiVersion::Before0804),
            ("0.80.4", PiVersion::From0804),
            ("0.81.1", PiVersion::From0804),
            ("0.85.9", PiVersion::From0804),
            ("0.86.0", PiVersion::From086),
            ("v0.87.1", PiVersion::From086),
            ("1.2.9", PiVersion::From086),
            ("1.3.0", PiVersion::From130),
            ("1.6.0", PiVersion::From130),
            ("2", PiVersion::From130),
            ("0.81", PiVersion::From0804),
            ("1.3.0-beta.1", PiVersion::From086),
            ("1.3.1-rc.1", PiVersion::From130),
            ("0.86.0+build.5", PiVersion::From086),
        ] {
            assert_eq!(
                PiVersion::from_version(version),
                Ok(pi_version),
                "{version}"
            );
        }
    }

    #[test]
    fn garbage_is_rejected_with_the_input_named() {
        for bad in [
            "", "latest", "1.x", "1.2.3.4", "1..2", "-1.0", "1.0-", "v", "1.+2",
        ] {
            let error = PiVersion::from_version(bad).unwrap_err().to_string();
            assert!(error.contains(&format!("{bad:?}")), "{error}");
        }
    }

    #[test]
    fn each_pi_version_is_checked_against_a_version_it_selects() {
        for pi_version in PiVersion::ALL {
            assert_eq!(
                PiVersion::from_version(pi_version.checked_against()),
                Ok(pi_version)
            );
        }
        assert_eq!(PiVersion::default(), PiVersion::From130);
        assert_eq!(PiVersion::From130.to_string(), "1.3.0+");
    }

    #[test]
    fn a_golden_vector_names_its_pi_version() {
        assert_eq!(PiVersion::of_vector("current"), Ok(PiVersion::From130));
        assert_eq!(PiVersion::of_vector("0.81.1"), Ok(PiVersion::From0804));
        assert_eq!(
            PiVersion::of_vector("newest"),
            Err(Error::InvalidPiVersion("newest".into()))
        );
    }
}
