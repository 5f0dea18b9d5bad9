//! Godot 4's replication packets: what `MultiplayerSpawner` and
//! `MultiplayerSynchronizer` send (SPAWN, DESPAWN, SYNC and its delta form).
//!
//! Property values travel as RPC arguments do (bools and ints compressed into their
//! type byte), without a count: the receiver knows how many from its replication
//! config, so a reader here takes values up to the end of their part.

use godot_bin::Variant;

use crate::args;
use crate::error::{Error, ErrorKind, Result};
use crate::reader::Reader;

/// The scene id of a node made by the spawner's `spawn_function`
/// (`MultiplayerSpawner::INVALID_ID`).
const CUSTOM: u8 = 255;

/// The most values one spawn state or one sync or delta entry may hold: far beyond
/// any replication config, and what bounds the memory a hostile packet costs (a value
/// takes a byte on the wire and 32 in memory).
pub const MAX_STATE_VALUES: usize = 1024;

/// Bit 31 of a synchronizer's net id: the id is a path cache id.
const BY_PATH: u32 = 0x8000_0000;

/// Characters Godot 4's `validate_node_name` replaces: a spawn whose name holds one
/// is refused by the receiving engine.
const NAME_INVALID: [char; 6] = ['.', ':', '@', '/', '"', '%'];

/// What a spawned node is made from.
#[derive(Debug, Clone, PartialEq)]
pub enum SpawnSource {
    /// The spawner's spawnable scene at this index (`add_spawnable_scene` order;
    /// 255 is not one: it marks the other form).
    Scene(u8),
    /// The spawner's `spawn_function`, called with this argument (what `spawn(data)`
    /// was given; no full Objects, which the engine does not decode here).
    Custom(Variant),
}

/// SPAWN (`[04]`): the sender's spawner made a node that the receiver makes too.
///
/// ```
/// use godot_bin::{Variant, Vector2};
/// use godot_bin_multiplayer::{Packet, Spawn, SpawnSource};
///
/// let spawn = Spawn {
///     source: SpawnSource::Scene(0),
///     spawner: 1,
///     net_id: 3,
///     sync_ids: vec![4],
///     name: "Mover".into(),
///     state: vec![Variant::Vector2(Vector2::new(1.0, 2.0)), Variant::Int(7)],
/// };
/// let bytes = Packet::Spawn(spawn.clone()).encode()?;
/// assert_eq!(Packet::decode(&bytes)?, Packet::Spawn(spawn));
/// # Ok::<(), godot_bin_multiplayer::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Spawn {
    /// A spawnable scene, or the spawn function's argument.
    pub source: SpawnSource,
    /// The sender's path cache id of the `MultiplayerSpawner` (sent before in a
    /// [`Packet::SimplifyPath`](crate::Packet::SimplifyPath)).
    pub spawner: u32,
    /// The node's network id, which DESPAWN names it by.
    pub net_id: u32,
    /// The network ids of the node's synchronizers (that the sender has authority
    /// over), in the order the receiver meets them; SYNC names them by these. Bit 31
    /// stays clear: it marks an id as a path cache id.
    pub sync_ids: Vec<u32>,
    /// The node's name under the spawn path: not empty, and none of `. : @ / " %`
    /// (the engine refuses such a name), no NUL.
    pub name: String,
    /// The spawn properties of every synchronizer in `sync_ids`, one after the other.
    pub state: Vec<Variant>,
}

/// One synchronizer's properties in a [`Sync`].
#[derive(Debug, Clone, PartialEq)]
pub struct SyncEntry {
    /// The synchronizer: a network id from a [`Spawn`], or with bit 31 set, the
    /// sender's path cache id of a synchronizer that was not spawned.
    pub net_id: u32,
    /// Its sync properties (replication mode "always"), in config order.
    pub state: Vec<Variant>,
}

/// SYNC (`[06][time u16]`, sent unreliably): the "always" properties of some
/// synchronizers; a receiver drops entries older than the last `time` it applied.
#[derive(Debug, Clone, PartialEq)]
pub struct Sync {
    /// The sender's sync counter for this receiver (wraps at 65536).
    pub time: u16,
    /// At least one, each with a value at least.
    pub entries: Vec<SyncEntry>,
}

/// One synchronizer's changed properties in a [`Delta`].
#[derive(Debug, Clone, PartialEq)]
pub struct DeltaEntry {
    /// As in [`SyncEntry::net_id`].
    pub net_id: u32,
    /// Bit `i`: the `i`-th watched property (replication mode "on change") is in
    /// `state`.
    pub indexes: u64,
    /// The changed properties, lowest bit first: as many as `indexes` has bits set.
    pub state: Vec<Variant>,
}

/// SYNC with the delta flag (`[16]`, sent reliably): watched properties that changed.
#[derive(Debug, Clone, PartialEq)]
pub struct Delta {
    /// At least one.
    pub entries: Vec<DeltaEntry>,
}

/// Values up to the end of `r`, at most [`MAX_STATE_VALUES`], kept in a `Vec` of
/// exactly their number.
fn values(r: &mut Reader<'_>) -> Result<Vec<Variant>> {
    let cfg = args::config();
    let mut out = Vec::new();
    while r.pos < r.bytes.len() {
        if out.len() == MAX_STATE_VALUES {
            return Err(Error::at(ErrorKind::TooManyValues(MAX_STATE_VALUES), r.pos));
        }
        out.push(args::one(r, &cfg, out.len())?);
    }
    out.shrink_to_fit();
    Ok(out)
}

fn check_name(name: &str, at: usize) -> Result<()> {
    if name.is_empty() || name.contains(NAME_INVALID) {
        return Err(Error::at(ErrorKind::NodeName(name.to_owned()), at));
    }
    Ok(())
}

fn check_sync_id(id: u32, at: usize) -> Result<()> {
    if id & BY_PATH != 0 {
        return Err(Error::at(ErrorKind::SyncId(id), at));
    }
    Ok(())
}

fn check_values(state: &[Variant]) -> Result<()> {
    if state.len() > MAX_STATE_VALUES {
        return Err(Error::at(ErrorKind::TooManyValues(MAX_STATE_VALUES), 0));
    }
    Ok(())
}

/// The state of a SYNC or delta entry: the engine never sends an empty one, and
/// fails to apply it.
fn entry_values(r: &mut Reader<'_>, size_at: usize) -> Result<Vec<Variant>> {
    if r.pos == r.bytes.len() {
        return Err(Error::at(ErrorKind::EmptyState, size_at));
    }
    values(r)
}

/// `r` up to `size` bytes from here, for a part that ends there.
fn part<'a>(r: &Reader<'a>, size: u32, what: &'static str) -> Result<Reader<'a>> {
    let end = usize::try_from(size)
        .ok()
        .and_then(|n| r.pos.checked_add(n))
        .filter(|&end| end <= r.bytes.len())
        .ok_or_else(|| Error::at(ErrorKind::Truncated(what), r.pos))?;
    Ok(Reader::new(&r.bytes[..end], r.pos))
}

/// How many entries of `head` bytes (the last four their state's size) follow from
/// `pos`, as far as their sizes hold: the capacity to read them into, so that a
/// packet of many small entries does not cost a doubling `Vec` on top.
fn entries_in(bytes: &[u8], mut pos: usize, head: usize) -> usize {
    let mut n = 0;
    while let Some(size) = bytes.get(pos + head - 4..pos + head) {
        let size = u32::from_le_bytes([size[0], size[1], size[2], size[3]]) as usize;
        pos = pos.saturating_add(head).saturating_add(size);
        n += 1;
    }
    n
}

/// Writes a `u32` size before what `f` appends.
fn sized(out: &mut Vec<u8>, f: impl FnOnce(&mut Vec<u8>) -> Result<()>) -> Result<()> {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    f(out)?;
    let size = u32::try_from(out.len() - at - 4)
        .map_err(|_| Error::at(ErrorKind::TooLarge("a replication state"), 0))?;
    out[at..at + 4].copy_from_slice(&size.to_le_bytes());
    Ok(())
}

impl Spawn {
    /// After the command byte.
    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<Spawn> {
        let scene = r.u8("the scene id")?;
        let spawner = r.u32("the spawner's cache id")?;
        let net_id = r.u32("the net id")?;
        let count_at = r.pos;
        let sync_count = r.u32("the synchronizer count")?;
        let name_len = r.u32("the name's length")?;
        // Checked against the bytes left before anything is allocated for them.
        let left = (r.bytes.len() - r.pos) as u64;
        if u64::from(sync_count) * 4 > left {
            return Err(Error::at(
                ErrorKind::Truncated("the synchronizer ids"),
                count_at,
            ));
        }
        let sync_ids = (0..sync_count)
            .map(|_| {
                let at = r.pos;
                let id = r.u32("a synchronizer id")?;
                check_sync_id(id, at).map(|()| id)
            })
            .collect::<Result<Vec<_>>>()?;
        let name_at = r.pos;
        let mut name = part(r, name_len, "the node name")?;
        let name_end = name.bytes.len();
        let name = name.last_cstr("node name")?;
        check_name(&name, name_at)?;
        r.pos = name_end;
        let source = if scene == CUSTOM {
            let size_at = r.pos;
            let size = r.u32("the spawn argument's size")?;
            let mut arg = part(r, size, "the spawn argument")?;
            if size == 0 {
                return Err(Error::at(
                    ErrorKind::Truncated("the spawn argument"),
                    size_at,
                ));
            }
            let v = args::one(&mut arg, &args::config(), 0)?;
            arg.end()?;
            r.pos = arg.pos;
            SpawnSource::Custom(v)
        } else {
            SpawnSource::Scene(scene)
        };
        let state = values(r)?;
        Ok(Spawn {
            source,
            spawner,
            net_id,
            sync_ids,
            name,
            state,
        })
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) -> Result<()> {
        check_name(&self.name, 0)?;
        for &id in &self.sync_ids {
            check_sync_id(id, 0)?;
        }
        check_values(&self.state)?;
        let scene = match self.source {
            SpawnSource::Scene(CUSTOM) => {
                return Err(Error::at(ErrorKind::TooLarge("scene index 255"), 0))
            }
            SpawnSource::Scene(i) => i,
            SpawnSource::Custom(_) => CUSTOM,
        };
        let count = u32::try_from(self.sync_ids.len())
            .map_err(|_| Error::at(ErrorKind::TooLarge("the synchronizer count"), 0))?;
        let name_len = u32::try_from(crate::reader::cstr_len(&self.name))
            .map_err(|_| Error::at(ErrorKind::TooLarge("the node name"), 0))?;
        out.push(crate::scene4::SPAWN);
        out.push(scene);
        for v in [self.spawner, self.net_id, count, name_len] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for id in &self.sync_ids {
            out.extend_from_slice(&id.to_le_bytes());
        }
        crate::reader::put_cstr(&self.name, out)?;
        if let SpawnSource::Custom(arg) = &self.source {
            sized(out, |out| args::encode(std::slice::from_ref(arg), out))?;
        }
        args::encode(&self.state, out)
    }
}

impl Sync {
    /// After the command byte.
    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<Sync> {
        let time = r.u16("the sync time")?;
        let mut entries = Vec::with_capacity(entries_in(r.bytes, r.pos, 8));
        loop {
            let net_id = r.u32("a sync entry's net id")?;
            let size_at = r.pos;
            let size = r.u32("a sync entry's size")?;
            let mut state = part(r, size, "a sync entry's state")?;
            entries.push(SyncEntry {
                net_id,
                state: entry_values(&mut state, size_at)?,
            });
            r.pos = state.pos;
            if r.pos == r.bytes.len() {
                return Ok(Sync { time, entries });
            }
        }
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) -> Result<()> {
        if self.entries.is_empty() {
            return Err(Error::at(ErrorKind::Truncated("a sync entry's net id"), 0));
        }
        out.push(crate::scene4::SYNC);
        out.extend_from_slice(&self.time.to_le_bytes());
        for e in &self.entries {
            if e.state.is_empty() {
                return Err(Error::at(ErrorKind::EmptyState, 0));
            }
            check_values(&e.state)?;
            out.extend_from_slice(&e.net_id.to_le_bytes());
            sized(out, |out| args::encode(&e.state, out))?;
        }
        Ok(())
    }
}

impl Delta {
    /// After the command byte.
    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<Delta> {
        let mut entries = Vec::with_capacity(entries_in(r.bytes, r.pos, 16));
        loop {
            let net_id = r.u32("a delta entry's net id")?;
            let at = r.pos;
            let indexes = r.u64("a delta entry's indexes")?;
            let size_at = r.pos;
            let size = r.u32("a delta entry's size")?;
            let mut state = part(r, size, "a delta entry's state")?;
            let state_values = entry_values(&mut state, size_at)?;
            // The engine reads as many values as bits are set, and wants them to
            // take the whole part.
            if state_values.len() != indexes.count_ones() as usize {
                return Err(Error::at(
                    ErrorKind::DeltaCount {
                        indexes,
                        values: state_values.len(),
                    },
                    at,
                ));
            }
            entries.push(DeltaEntry {
                net_id,
                indexes,
                state: state_values,
            });
            r.pos = state.pos;
            if r.pos == r.bytes.len() {
                return Ok(Delta { entries });
            }
        }
    }

    pub(crate) fn encode(&self, out: &mut Vec<u8>) -> Result<()> {
        if self.entries.is_empty() {
            return Err(Error::at(ErrorKind::Truncated("a delta entry's net id"), 0));
        }
        out.push(crate::scene4::SYNC | crate::scene4::DELTA);
        for e in &self.entries {
            if e.state.is_empty() {
                return Err(Error::at(ErrorKind::EmptyState, 0));
            }
            check_values(&e.state)?;
            if e.state.len() != e.indexes.count_ones() as usize {
                return Err(Error::at(
                    ErrorKind::DeltaCount {
                        indexes: e.indexes,
                        values: e.state.len(),
                    },
                    0,
                ));
            }
            out.extend_from_slice(&e.net_id.to_le_bytes());
            out.extend_from_slice(&e.indexes.to_le_bytes());
            sized(out, |out| args::encode(&e.state, out))?;
        }
        Ok(())
    }
}
