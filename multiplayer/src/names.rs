//! A node's rpc methods as both sides must agree on them: ids are positions in the
//! sorted list of names, and SIMPLIFY_PATH carries the md5 of the names joined.

use md5::{Digest, Md5};

/// The `@rpc` method names of one node's script, sorted (as SceneMultiplayer numbers
/// them).
///
/// ```
/// use godot_bin_multiplayer::RpcNames;
/// let names = RpcNames::new(["welcome", "ping", "hello", "nums", "blob"]);
/// assert_eq!(names.id("ping"), Some(3));
/// assert_eq!(names.name(0), Some("blob"));
/// assert_eq!(names.checksum(), format!("{:x}", md5::Md5::digest("blobhellonumspingwelcome")));
/// # use md5::Digest;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RpcNames {
    names: Vec<String>,
    /// Computed once: every first call to a peer carries it.
    checksum: String,
}

impl Default for RpcNames {
    /// No names (its checksum is the md5 of nothing).
    fn default() -> Self {
        RpcNames::new(Vec::<String>::new())
    }
}

impl RpcNames {
    /// The names in any order; duplicates count once.
    pub fn new<I, S>(names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut names: Vec<String> = names.into_iter().map(Into::into).collect();
        names.sort_unstable();
        names.dedup();
        let mut h = Md5::new();
        for n in &names {
            h.update(n.as_bytes());
        }
        let checksum = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        RpcNames { names, checksum }
    }

    /// The method id of `name`.
    pub fn id(&self, name: &str) -> Option<u16> {
        let i = self.names.binary_search_by(|n| n.as_str().cmp(name)).ok()?;
        u16::try_from(i).ok()
    }

    /// The name of method id `id`.
    pub fn name(&self, id: u16) -> Option<&str> {
        self.names.get(usize::from(id)).map(String::as_str)
    }

    /// The sorted names.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The md5 of the sorted names concatenated, as 32 lowercase hex digits: what a
    /// SIMPLIFY_PATH for this node carries.
    pub fn checksum(&self) -> &str {
        &self.checksum
    }
}
