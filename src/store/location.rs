//! Where a run lives: a local directory or a prefix in an S3 bucket.

use std::fmt;
use std::path::PathBuf;

use super::StoreError;

/// A run's location, as `--run` names it.
///
/// ```
/// use yinsh_zero::store::Location;
/// assert_eq!(
///     Location::parse("s3://games/yinsh/run-3/").unwrap(),
///     Location::S3 { bucket: "games".into(), prefix: "yinsh/run-3".into() }
/// );
/// assert_eq!(Location::parse("runs/a").unwrap(), Location::Local("runs/a".into()));
/// assert_eq!(Location::parse("file:///tmp/a").unwrap(), Location::Local("/tmp/a".into()));
/// assert!(Location::parse("s3://").is_err());
/// assert!(Location::parse("gopher://x").is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A directory on this machine (a plain path or a `file://` URL).
    Local(PathBuf),
    /// A prefix (possibly empty) in an S3-compatible bucket.
    S3 { bucket: String, prefix: String },
}

impl Location {
    pub fn parse(text: &str) -> Result<Location, StoreError> {
        let bad = |why: &str| StoreError::BadLocation {
            location: text.to_string(),
            why: why.to_string(),
        };
        if let Some(rest) = text.strip_prefix("s3://") {
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(bad("no bucket: write s3://BUCKET/PREFIX"));
            }
            let prefix = prefix.trim_matches('/');
            if prefix.split('/').any(|p| p == "." || p == "..") || prefix.contains("//") {
                return Err(bad("the prefix may not hold empty, `.` or `..` parts"));
            }
            return Ok(Location::S3 {
                bucket: bucket.to_string(),
                prefix: prefix.to_string(),
            });
        }
        if let Some(path) = text.strip_prefix("file://") {
            if path.is_empty() {
                return Err(bad("no path after file://"));
            }
            return Ok(Location::Local(PathBuf::from(path)));
        }
        if let Some((scheme, _)) = text.split_once("://") {
            return Err(bad(&format!(
                "`{scheme}://` is not a store this build speaks: give a path, file://PATH or \
                 s3://BUCKET/PREFIX"
            )));
        }
        if text.is_empty() {
            return Err(bad("empty"));
        }
        Ok(Location::Local(PathBuf::from(text)))
    }

    pub fn is_local(&self) -> bool {
        matches!(self, Location::Local(_))
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Local(p) => write!(f, "{}", p.display()),
            Location::S3 { bucket, prefix } if prefix.is_empty() => write!(f, "s3://{bucket}"),
            Location::S3 { bucket, prefix } => write!(f, "s3://{bucket}/{prefix}"),
        }
    }
}
