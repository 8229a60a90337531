//! The four behaviour variants of pi's provider boundary, and how a version string picks one.

use std::fmt;

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
    /// Every variant, oldest first.
    pub const ALL: [PiVersion; 4] = [
        PiVersion::Before0804,
        PiVersion::From0804,
        PiVersion::From086,
        PiVersion::From130,
    ];

    /// Picks the variant of any pi version: `1.6.0`, `v0.87.1`, `0.81`, `1.3.0-beta.1`.
    ///
    /// A leading `v`, missing minor/patch components (read as 0) and a `+build` suffix are
    /// accepted. A `-prerelease` sorts before its release, as in semver, so `1.3.0-beta.1` is a
    /// 1.2.x-era build and gets that variant. Anything else is an error naming the input.
    pub fn from_version(version: &str) -> Result<PiVersion, String> {
        let (major, minor, patch, prerelease) = parse_version(version).ok_or_else(|| {
            format!(
                "invalid pi version {version:?}: expected MAJOR.MINOR.PATCH such as 1.6.0 \
                 (a leading `v` and a -prerelease or +build suffix are allowed)"
            )
        })?;
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

    /// The published version this variant's model is checked against by the conformance test.
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
    fn versions_pick_their_variant_at_the_changelog_boundaries() {
        for (version, variant) in [
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
            assert_eq!(PiVersion::from_version(version), Ok(variant), "{version}");
        }
    }

    #[test]
    fn garbage_is_rejected_with_the_input_named() {
        for bad in [
            "", "latest", "1.x", "1.2.3.4", "1..2", "-1.0", "1.0-", "v", "1.+2",
        ] {
            let error = PiVersion::from_version(bad).unwrap_err();
            assert!(error.contains(&format!("{bad:?}")), "{error}");
        }
    }

    #[test]
    fn each_variant_is_checked_against_a_version_it_selects() {
        for variant in PiVersion::ALL {
            assert_eq!(
                PiVersion::from_version(variant.checked_against()),
                Ok(variant)
            );
        }
        assert_eq!(PiVersion::default(), PiVersion::From130);
        assert_eq!(PiVersion::From130.to_string(), "1.3.0+");
    }
}
