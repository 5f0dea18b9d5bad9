//! Telling from a value's bytes which Godot version wrote them.

use crate::{Config, Dialect, Variant};

/// What [`Dialect::detect`] found out about a value's bytes (or
/// [`Dialect::detect_all`] about several values').
///
/// The rule, in order:
/// 1. **Readers**: the dialects that decode the bytes as exactly one value, every byte
///    used (full objects allowed, everything else at the defaults).
/// 2. **Writers**: those readers whose engine writes these very bytes for the value
///    they decode to (a double-precision build's 64-bit vectors, or hand-made bytes
///    such as a 64-bit header on an int that fits in 32 bits, are read but not written
///    by the engines).
/// 3. The choice is the newest writer, or the newest reader when no dialect writes
///    these bytes (hand-made or double-precision bytes), or none when no dialect
///    reads them.
///
/// Small leaf values are often ambiguous, and most of them harmlessly so: `int`,
/// `String`, `bool` and `null` read the same everywhere. The ambiguous cases that
/// matter are pairs of types of equal size under one id in two versions: Godot 3's
/// `AABB` and Godot 4's `Transform2D` (id 11, six floats), Godot 3's `Color` and
/// Godot 4's `Plane` (id 14, four floats), Godot 3's `PoolByteArray` of 12 bytes and
/// Godot 4's `Color` (id 20), and Godot 2's `Matrix32` and Godot 3's `Transform2D`
/// (id 8, same layout, same value). [`Detection::is_ambiguous`] says when the
/// candidates disagree on the value; inside containers such coincidences are rare,
/// because every element has to fit.
///
/// ```
/// use godot_bin::{Config, Dialect, Vector3};
///
/// let v4 = Config::new().dialect(Dialect::Godot4).to_vec(&Vector3::new(1.0, 2.0, 3.0))?;
/// let d = Dialect::detect(&v4);
/// assert_eq!(d.dialect(), Some(Dialect::Godot4));
/// assert!(!d.is_ambiguous());
///
/// // An int reads the same in every version: ambiguous in name only.
/// let d = Dialect::detect(&godot_bin::to_vec(&7)?);
/// assert_eq!(d.readers(), [Dialect::Godot4, Dialect::Godot3, Dialect::Godot2]);
/// assert!(!d.is_ambiguous());
///
/// // Godot 3's Color has the id and size of Godot 4's Plane.
/// let color = Config::new().to_vec(&godot_bin::Color::new(1.0, 0.0, 0.0, 1.0))?;
/// let d = Dialect::detect(&color);
/// assert_eq!(d.readers(), [Dialect::Godot4, Dialect::Godot3, Dialect::Godot2]);
/// assert!(d.is_ambiguous());
/// # Ok::<(), godot_bin::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Detection {
    readers: Vec<(Dialect, Vec<Variant>)>,
    writers: Vec<Dialect>,
}

impl Detection {
    /// The dialect chosen by the rule above, if any reads the bytes.
    pub fn dialect(&self) -> Option<Dialect> {
        self.writers
            .first()
            .or_else(|| self.readers.first().map(|(d, _)| d))
            .copied()
    }

    /// Every dialect that reads the bytes as one value, newest first.
    pub fn readers(&self) -> Vec<Dialect> {
        self.readers.iter().map(|(d, _)| *d).collect()
    }

    /// The readers whose engine writes exactly these bytes, newest first.
    pub fn writers(&self) -> &[Dialect] {
        &self.writers
    }

    /// Whether the dialects the choice was made among read different values.
    pub fn is_ambiguous(&self) -> bool {
        let among: Vec<&Vec<Variant>> = if self.writers.is_empty() {
            self.readers.iter().map(|(_, v)| v).collect()
        } else {
            self.readers
                .iter()
                .filter(|(d, _)| self.writers.contains(d))
                .map(|(_, v)| v)
                .collect()
        };
        among.windows(2).any(|w| w[0] != w[1])
    }

    /// The values the chosen dialect reads.
    pub fn values(&self) -> Option<&[Variant]> {
        let chosen = self.dialect()?;
        self.readers
            .iter()
            .find(|(d, _)| *d == chosen)
            .map(|(_, v)| &v[..])
    }
}

impl Dialect {
    /// Works out which dialect `bytes` (one value, no length prefix) are in; see
    /// [`Detection`] for the rule and its ambiguous cases.
    pub fn detect(bytes: &[u8]) -> Detection {
        Dialect::detect_all(&[bytes])
    }

    /// [`Dialect::detect`] for several values (the frames of a `store_var` file, the
    /// packets of a session): a dialect must read (and, to count as a writer, write)
    /// every one of them.
    ///
    /// ```
    /// use godot_bin::{Config, Dialect, Quat};
    ///
    /// // Alone, `null` could be anything; with a Quat after it, only Godot 3 fits.
    /// let cfg = Config::new().dialect(Dialect::Godot3);
    /// let (a, b) = (cfg.to_vec(&())?, cfg.to_vec(&Quat::IDENTITY)?);
    /// assert_eq!(Dialect::detect(&a).dialect(), Some(Dialect::Godot4));
    /// assert_eq!(Dialect::detect_all(&[&a, &b]).dialect(), Some(Dialect::Godot3));
    /// # Ok::<(), godot_bin::Error>(())
    /// ```
    pub fn detect_all(values: &[&[u8]]) -> Detection {
        let mut readers = Vec::new();
        let mut writers = Vec::new();
        for dialect in [Dialect::Godot4, Dialect::Godot3, Dialect::Godot2] {
            let cfg = Config::new().dialect(dialect).allow_objects(true);
            let Ok(decoded) = values
                .iter()
                .map(|b| cfg.from_slice::<Variant>(b))
                .collect::<Result<Vec<_>, _>>()
            else {
                continue;
            };
            let writes = |(v, b): (&Variant, &&[u8])| cfg.encode_passing(v).is_ok_and(|a| a == *b);
            if decoded.iter().zip(values).all(writes) {
                writers.push(dialect);
            }
            readers.push((dialect, decoded));
        }
        Detection { readers, writers }
    }
}
