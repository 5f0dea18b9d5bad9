//! Types that only Godot 2 sends: `Image` and `InputEvent`.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeTupleStruct, Serializer};

use crate::VariantType;

/// A Godot 2 `Image`: format id, mipmap count, size and raw pixel data.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Image {
    /// `Image::Format` of Godot 2.1 (0 GRAYSCALE ... 4 RGBA ... 22 CUSTOM).
    pub format: u32,
    /// Number of mipmaps.
    pub mipmaps: u32,
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The pixel bytes.
    pub data: Vec<u8>,
}

/// Godot 2.1's `Image::FORMAT_MAX`: higher format ids are refused.
pub(crate) const IMAGE_FORMAT_MAX: u32 = 23;

impl Serialize for Image {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple_struct(VariantType::Image.marker(), 5)?;
        t.serialize_field(&self.format)?;
        t.serialize_field(&self.mipmaps)?;
        t.serialize_field(&self.width)?;
        t.serialize_field(&self.height)?;
        t.serialize_field(serde_bytes::Bytes::new(&self.data))?;
        t.end()
    }
}

impl<'de> Deserialize<'de> for Image {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Image;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an Image")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Image, A::Error> {
                let mut next = |i| {
                    seq.next_element::<u32>()?
                        .ok_or_else(|| de::Error::invalid_length(i, &self))
                };
                let (format, mipmaps, width, height) = (next(0)?, next(1)?, next(2)?, next(3)?);
                let data = seq
                    .next_element::<serde_bytes::ByteBuf>()?
                    .ok_or_else(|| de::Error::invalid_length(4, &self))?
                    .into_vec();
                Ok(Image {
                    format,
                    mipmaps,
                    width,
                    height,
                    data,
                })
            }
        }
        d.deserialize_tuple_struct(VariantType::Image.marker(), 5, V)
    }
}

/// A Godot 2 `InputEvent` as the engine encodes it: type, device and the fields its
/// type carries (other fields of the event are not sent).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct InputEvent {
    /// The device index.
    pub device: u32,
    /// The event type and its encoded fields.
    pub kind: InputEventKind,
}

/// The kinds of Godot 2 input event, with what the encoder writes for each.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
#[non_exhaustive]
pub enum InputEventKind {
    /// `NONE` (0).
    #[default]
    None,
    /// `KEY` (1): modifier mask (SHIFT 1<<25, ALT 1<<26, META 1<<27, CTRL 1<<28) and scancode.
    Key {
        /// Modifier bits.
        modifiers: u32,
        /// The key's scancode.
        scancode: u32,
    },
    /// `MOUSE_MOTION` (2): only the type is sent.
    MouseMotion,
    /// `MOUSE_BUTTON` (3).
    MouseButton {
        /// The button index.
        button_index: u32,
    },
    /// `JOYSTICK_MOTION` (4).
    JoystickMotion {
        /// The axis.
        axis: u32,
        /// The axis value.
        axis_value: f32,
    },
    /// `JOYSTICK_BUTTON` (5).
    JoystickButton {
        /// The button index.
        button_index: u32,
    },
    /// `SCREEN_TOUCH` (6).
    ScreenTouch {
        /// The touch index.
        index: u32,
    },
    /// `SCREEN_DRAG` (7): only the type is sent.
    ScreenDrag,
    /// `ACTION` (8): only the type is sent.
    Action,
    /// A type id the 2.1 encoder does not know: only the type is sent.
    Other(u32),
}

impl InputEventKind {
    /// The type id and the extra words the encoder writes after the 12-byte base.
    pub(crate) fn words(&self) -> (u32, [u32; 2], usize) {
        match *self {
            InputEventKind::None => (0, [0, 0], 0),
            InputEventKind::Key {
                modifiers,
                scancode,
            } => (1, [modifiers, scancode], 2),
            InputEventKind::MouseMotion => (2, [0, 0], 0),
            InputEventKind::MouseButton { button_index } => (3, [button_index, 0], 1),
            InputEventKind::JoystickMotion { axis, axis_value } => {
                (4, [axis, axis_value.to_bits()], 2)
            }
            InputEventKind::JoystickButton { button_index } => (5, [button_index, 0], 1),
            InputEventKind::ScreenTouch { index } => (6, [index, 0], 1),
            InputEventKind::ScreenDrag => (7, [0, 0], 0),
            InputEventKind::Action => (8, [0, 0], 0),
            InputEventKind::Other(t) => (t, [0, 0], 0),
        }
    }

    /// How many extra words the decoder reads for a type id.
    pub(crate) fn extra_words(type_id: u32) -> usize {
        match type_id {
            1 | 4 => 2,
            3 | 5 | 6 => 1,
            _ => 0,
        }
    }

    fn from_words(type_id: u32, w: [u32; 2]) -> Self {
        match type_id {
            0 => InputEventKind::None,
            1 => InputEventKind::Key {
                modifiers: w[0],
                scancode: w[1],
            },
            2 => InputEventKind::MouseMotion,
            3 => InputEventKind::MouseButton { button_index: w[0] },
            4 => InputEventKind::JoystickMotion {
                axis: w[0],
                axis_value: f32::from_bits(w[1]),
            },
            5 => InputEventKind::JoystickButton { button_index: w[0] },
            6 => InputEventKind::ScreenTouch { index: w[0] },
            7 => InputEventKind::ScreenDrag,
            8 => InputEventKind::Action,
            t => InputEventKind::Other(t),
        }
    }
}

impl Eq for InputEvent {}

impl std::hash::Hash for InputEvent {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.device.hash(h);
        self.kind.words().hash(h);
    }
}

/// On the wire (and to other formats): `(type, device, extra words...)`.
impl Serialize for InputEvent {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (ty, w, n) = self.kind.words();
        let mut t = s.serialize_tuple_struct(VariantType::InputEvent.marker(), 2 + n)?;
        t.serialize_field(&ty)?;
        t.serialize_field(&self.device)?;
        for word in &w[..n] {
            t.serialize_field(word)?;
        }
        t.end()
    }
}

impl<'de> Deserialize<'de> for InputEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = InputEvent;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an InputEvent")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<InputEvent, A::Error> {
                let ty: u32 = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(0, &self))?;
                let device = seq
                    .next_element()?
                    .ok_or_else(|| de::Error::invalid_length(1, &self))?;
                let mut w = [0u32; 2];
                for (i, slot) in w
                    .iter_mut()
                    .take(InputEventKind::extra_words(ty))
                    .enumerate()
                {
                    *slot = seq
                        .next_element()?
                        .ok_or_else(|| de::Error::invalid_length(2 + i, &self))?;
                }
                Ok(InputEvent {
                    device,
                    kind: InputEventKind::from_words(ty, w),
                })
            }
        }
        d.deserialize_tuple_struct(VariantType::InputEvent.marker(), 4, V)
    }
}
