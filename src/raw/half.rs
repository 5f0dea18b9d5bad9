//! `put_half` / `get_half` (Godot 4): IEEE binary16 floats.

use std::fmt;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};

use super::marker::HALF;

/// A half-precision float, two bytes in the raw layout (`StreamPeer.put_half`).
///
/// It holds a [`half::f16`], so the encoder writes exactly its bits: rounding happens
/// where you build one. [`Half::from_f32`] rounds as the engine's `put_half` does; for
/// IEEE round-to-nearest, build it from [`half::f16::from_f32`]. Other formats see an
/// `f32` (exact).
///
/// ```
/// use godot_bin::raw::{self, Half};
/// let bytes = raw::to_vec(&Half::from_f32(1.5))?;
/// assert_eq!(bytes, [0x00, 0x3E]);
/// assert_eq!(raw::from_slice::<Half>(&bytes)?.to_f32(), 1.5);
/// // The engine cuts the mantissa: 65520 stays finite (IEEE rounding gives infinity).
/// assert_eq!(Half::from_f32(65520.0).to_f32(), 65504.0);
/// # Ok::<(), godot_bin::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct Half(pub half::f16);

impl Half {
    /// The half that Godot 4's `put_half(v)` writes: the mantissa cut (not rounded),
    /// magnitudes below 2^-14 as +0 (no subnormals, no sign), at and above 65536
    /// infinity, and every NaN as 0x7FFF with its sign.
    pub fn from_f32(v: f32) -> Self {
        let x = v.to_bits();
        let sign = ((x >> 16) & 0x8000) as u16;
        let exponent = x & 0x7F80_0000;
        let mantissa = x & 0x007F_FFFF;
        let bits = if exponent >= 0x4780_0000 {
            let nan = exponent == 0x7F80_0000 && mantissa != 0;
            sign | 0x7C00 | if nan { 0x3FF } else { 0 }
        } else if exponent <= 0x3800_0000 {
            0
        } else {
            sign | ((exponent - 0x3800_0000) >> 13) as u16 | (mantissa >> 13) as u16
        };
        Half(half::f16::from_bits(bits))
    }

    /// The value as an `f32` (exact).
    pub fn to_f32(self) -> f32 {
        widen(self.0.to_bits())
    }
}

/// A half's bits as the `f32` of the same value; a NaN keeps its payload bits as
/// the engine's `get_half` does (no quiet bit added), so `narrow` gives them back.
pub(crate) fn widen(bits: u16) -> f32 {
    if bits & 0x7C00 == 0x7C00 && bits & 0x3FF != 0 {
        let sign = u32::from(bits & 0x8000) << 16;
        return f32::from_bits(sign | 0x7F80_0000 | u32::from(bits & 0x3FF) << 13);
    }
    half::f16::from_bits(bits).to_f32()
}

/// The bits of the half that is exactly `v`, if one is.
pub(crate) fn narrow(v: f32) -> Option<u16> {
    let x = v.to_bits();
    if v.is_nan() {
        // Only NaNs that `widen` makes: payload in the top ten mantissa bits.
        let payload = x & 0x007F_FFFF;
        return (payload & 0x1FFF == 0 && payload != 0)
            .then_some(((x >> 16) & 0x8000) as u16 | 0x7C00 | (payload >> 13) as u16);
    }
    let h = half::f16::from_f32(v);
    (widen(h.to_bits()).to_bits() == x).then_some(h.to_bits())
}

impl From<half::f16> for Half {
    fn from(v: half::f16) -> Self {
        Half(v)
    }
}

impl From<Half> for f32 {
    fn from(v: Half) -> f32 {
        v.to_f32()
    }
}

impl Serialize for Half {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_newtype_struct(HALF, &self.to_f32())
    }
}

impl<'de> Deserialize<'de> for Half {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Half;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a half-precision float")
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Half, D::Error> {
                let v = f32::deserialize(d)?;
                // Other formats may hold any f32: only exact halves are taken.
                narrow(v)
                    .map(|bits| Half(half::f16::from_bits(bits)))
                    .ok_or_else(|| {
                        de::Error::invalid_value(
                            de::Unexpected::Float(v.into()),
                            &"a float that is exactly a half",
                        )
                    })
            }
        }
        d.deserialize_newtype_struct(HALF, V)
    }
}
