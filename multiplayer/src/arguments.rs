//! The arguments of a received [`Call`](crate::Call), kept as the packet held them and
//! read when the handler asks, in the type it asks for.
//!
//! Why not `Variant`s: a handler wants its own types (`call.args::<(Vector3, i64)>()`),
//! and a `Variant` list on the way there was built, then written back to bytes for the
//! typed decoder, then dropped: a movement call's receive and read took 2045
//! instructions that way, 1005 from the bytes, against 544 read in place
//! (`receive_call`).

use std::fmt;

use godot_bin::{Config, Dialect, Variant};
use serde::de::DeserializeOwned;

use crate::error::{Error, ErrorKind, Result};

/// The arguments of an [`Event::Call`](crate::Event::Call): read them with
/// [`Arguments::get`] (or [`Call::args`](crate::Call::args)) into the handler's own
/// types, or as `Variant`s with [`Arguments::to_variants`].
///
/// A call received (relayed too) holds its packet's argument bytes, checked on
/// arrival as decoding them goes, without making them (a call whose arguments do not
/// decode is refused then), and reads them only when asked: into the handler's types,
/// or into `Variant`s.
///
/// Typed reads of a received call are [`crate::Args::get`]'s (a Godot 3 call's
/// [`crate::godot3::Args::get`]'s); of arguments made from `Variant`s
/// (`vec![...].into()`), godot_bin's of those Variants' Godot 4 bytes. The two give
/// the same values but where godot_bin's typed reads differ from its `Variant`s, as
/// `Args::get` names: a struct refuses a Dictionary with a key twice (a `Variant`
/// keeps the last value), a 64-bit math value read as `f64`s keeps its 64-bit reals
/// (a `Variant` rounds them to 32 bits), and a Godot 3 RID reads as a unit (its
/// `Variant` is RID 0).
///
/// Two are equal when they hold the same values, whichever form each holds them in.
///
/// ```
/// use godot_bin::{Variant, Vector3};
/// use godot_bin_multiplayer::{Delivery, Event, Scene, Session, Target};
/// let scene = || Scene::new().node("Game", ["move"]);
/// let (mut server, mut client) = (Session::server(scene()), Session::client(7, scene()));
/// server.connect(7);
/// client.connect(1);
/// client.rpc(Target::Peer(1), "Game", "move", &(Vector3::new(1.0, 2.0, 3.0), 5))?;
/// while let Some(t) = client.poll_transmit() {
///     server.receive(7, t.delivery, &t.bytes)?;
/// }
/// let mut events = std::iter::from_fn(|| server.poll_event());
/// let call = events.find_map(|e| match e { Event::Call(c) => Some(c), _ => None }).unwrap();
/// let (to, speed): (Vector3, u8) = call.args.get()?;
/// assert_eq!((to.z, speed), (3.0, 5));
/// assert_eq!(call.args.to_variants()?[1], Variant::Int(5));
/// assert_eq!(call.args, [Vector3::new(1.0, 2.0, 3.0).into(), Variant::Int(5)]);
/// # Ok::<(), godot_bin_multiplayer::Error>(())
/// ```
#[derive(Clone)]
pub struct Arguments(Repr);

#[derive(Clone)]
enum Repr {
    /// A Godot 4 call's packet up to the end of its arguments (see
    /// [`crate::Args`]), checked.
    Godot4 {
        kept: Kept,
        argc: Option<u8>,
    },
    /// A Godot 3 call's, alike (see [`crate::godot3::Args`]).
    Godot3 {
        kept: Kept,
        argc: u8,
    },
    Variants(Vec<Variant>),
}

/// A received call's bytes, up to the end of its arguments, as an [`Arguments`] keeps
/// them, with where its arguments start: a usual call's (a movement update, a chat
/// line) in place, so receiving one allocates and frees nothing for them (the pair
/// cost about 130 of the 1100 instructions of receiving a call and reading its
/// arguments), longer ones boxed. Small enough that an [`Event`](crate::Event) stays
/// within what a move copies without calling `memcpy`.
#[derive(Clone)]
enum Kept {
    Inline {
        len: u8,
        start: u8,
        buf: [u8; INLINE],
    },
    Boxed {
        bytes: Box<[u8]>,
        start: usize,
    },
}

/// The most bytes kept in place: the kept bytes take 48 with their length, start and
/// tag, as many as a 42-byte movement call needs.
const INLINE: usize = 45;

impl Kept {
    fn new(bytes: &[u8], start: usize) -> Self {
        // The arguments start within their packet: `start` fits where `len` does.
        match (u8::try_from(bytes.len()), u8::try_from(start)) {
            (Ok(len), Ok(start)) if usize::from(len) <= INLINE => {
                let mut buf = [0; INLINE];
                buf[..bytes.len()].copy_from_slice(bytes);
                Kept::Inline { len, start, buf }
            }
            _ => Kept::Boxed {
                bytes: bytes.into(),
                start,
            },
        }
    }

    fn parts(&self) -> (&[u8], usize) {
        match self {
            Kept::Inline { len, start, buf } => (&buf[..usize::from(*len)], usize::from(*start)),
            Kept::Boxed { bytes, start } => (bytes, *start),
        }
    }

    fn godot4(&self, argc: Option<u8>) -> crate::Args<'_> {
        let (bytes, start) = self.parts();
        crate::Args::from_parts(bytes, start, argc)
    }

    fn godot3(&self, argc: u8) -> crate::godot3::Args<'_> {
        let (bytes, start) = self.parts();
        crate::godot3::Args::from_parts(bytes, start, argc)
    }
}

impl Arguments {
    /// A received Godot 4 call's arguments, checked as [`crate::Args::to_variants`]
    /// reads them, with its errors, without making them.
    pub(crate) fn godot4(args: crate::Args<'_>) -> Result<Self> {
        args.check()?;
        let (bytes, start, argc) = args.parts();
        Ok(Arguments(Repr::Godot4 {
            kept: Kept::new(bytes, start),
            argc,
        }))
    }

    /// [`Arguments::godot4`] of a received Godot 3 call's arguments.
    pub(crate) fn godot3(args: crate::godot3::Args<'_>) -> Result<Self> {
        args.check()?;
        let (bytes, start, argc) = args.parts();
        Ok(Arguments(Repr::Godot3 {
            kept: Kept::new(bytes, start),
            argc,
        }))
    }

    /// How many arguments there are.
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Godot4 { kept, argc } => kept.godot4(*argc).len(),
            Repr::Godot3 { argc, .. } => usize::from(*argc),
            Repr::Variants(v) => v.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The arguments as a Rust value, usually a tuple: `let (pos, name): (Vector3,
    /// String) = call.args.get()?`, read as [`crate::Args::get`] reads them from the
    /// packet (a Godot 3 call's as [`crate::godot3::Args::get`]), with its errors and
    /// their offsets in the packet (see the type's docs for arguments made from
    /// `Variant`s). Any Godot 4 type may be asked for (`Vector2i`,
    /// `StringName`, ...), whichever version the caller speaks: a Godot 3 argument
    /// is the same value in Godot 4. Arguments made from `Variant`s read as godot_bin
    /// reads those Variants' Godot 4 bytes (Objects too).
    pub fn get<T: DeserializeOwned>(&self) -> Result<T> {
        match &self.0 {
            Repr::Godot4 { kept, argc } => kept.godot4(*argc).get(),
            Repr::Godot3 { kept, argc } => kept.godot3(*argc).get(),
            Repr::Variants(args) => {
                if args.is_empty() {
                    return crate::args::none().map_err(|e| Error::at(ErrorKind::Arguments(e), 0));
                }
                // What is in memory was allowed in when it arrived: Objects included,
                // and the depth the packet decoder allows, in the one Array more that
                // holds them.
                let cfg = Config::new()
                    .dialect(Dialect::Godot4)
                    .allow_objects(true)
                    .max_depth(godot_bin::DEFAULT_MAX_DEPTH + 1);
                cfg.to_vec(args)
                    .and_then(|bytes| cfg.from_slice(&bytes))
                    // An offset in those bytes would mean nothing to the caller.
                    .map_err(|e| Error::at(ErrorKind::Arguments(e.into_kind().into()), 0))
            }
        }
    }

    /// The arguments as `Variant`s. Those a call brought were checked on arrival as
    /// this reads them, and those made from `Variant`s are these: neither fails here
    /// (the `Result` is [`crate::Args::to_variants`]'s, which this calls).
    pub fn to_variants(&self) -> Result<Vec<Variant>> {
        match &self.0 {
            Repr::Variants(v) => Ok(v.clone()),
            Repr::Godot4 { kept, argc } => kept.godot4(*argc).to_variants(),
            Repr::Godot3 { kept, argc } => kept.godot3(*argc).to_variants(),
        }
    }

    /// The arguments as `Variant`s, consuming them.
    pub fn into_variants(self) -> Result<Vec<Variant>> {
        match self.0 {
            Repr::Variants(v) => Ok(v),
            _ => self.to_variants(),
        }
    }
}

impl From<Vec<Variant>> for Arguments {
    fn from(args: Vec<Variant>) -> Self {
        Arguments(Repr::Variants(args))
    }
}

impl Default for Arguments {
    fn default() -> Self {
        Vec::new().into()
    }
}

impl PartialEq for Arguments {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Repr::Variants(a), Repr::Variants(b)) => a == b,
            _ => matches!((self.to_variants(), other.to_variants()), (Ok(a), Ok(b)) if a == b),
        }
    }
}

impl Arguments {
    fn holds(&self, values: &[Variant]) -> bool {
        match &self.0 {
            Repr::Variants(v) => v == values,
            _ => matches!(self.to_variants(), Ok(v) if v == values),
        }
    }
}

impl PartialEq<[Variant]> for Arguments {
    fn eq(&self, other: &[Variant]) -> bool {
        self.holds(other)
    }
}

impl<const N: usize> PartialEq<[Variant; N]> for Arguments {
    fn eq(&self, other: &[Variant; N]) -> bool {
        self.holds(other)
    }
}

impl PartialEq<Vec<Variant>> for Arguments {
    fn eq(&self, other: &Vec<Variant>) -> bool {
        self.holds(other)
    }
}

impl fmt::Debug for Arguments {
    /// As the list of `Variant`s they are.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_variants() {
            Ok(v) => f.debug_list().entries(&v).finish(),
            Err(e) => write!(f, "Arguments({e})"),
        }
    }
}
