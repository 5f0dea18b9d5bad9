//! Framing: length prefixes, limits, truncation, resumption after I/O errors, save
//! files, packets and Base64.

#[path = "common/peak.rs"]
mod peak;

use std::io::{self, Read, Write};

use godot_bin::framing::{
    self, Framing, VarReader, VarWriter, DEFAULT_MAX_FRAME, PACKET_PEER_MAX,
    PACKET_PEER_STREAM_RECV_MAX, PACKET_PEER_STREAM_SEND_MAX,
};
use godot_bin::{
    Config, Dialect, Dictionary, ErrorKind, PoolByteArray, PoolStringArray, Variant, Vector3,
};
use peak::peak;
use quickcheck::{QuickCheck, TestResult};

const LE: Framing = Framing::StreamPeer { big_endian: false };
const BE: Framing = Framing::StreamPeer { big_endian: true };
const PPS: Framing = Framing::PacketPeerStream;

fn frames(framing: Framing, values: &[Variant]) -> Vec<u8> {
    let mut w = VarWriter::new(Vec::new(), framing);
    for v in values {
        w.put_var(v).unwrap();
    }
    w.into_inner()
}

fn sample() -> Vec<Variant> {
    let mut player = Dictionary::new();
    player.insert("name", "Ann");
    player.insert("pos", Vector3::new(1.0, 2.0, 3.0));
    vec![
        42.into(),
        "hi".into(),
        Variant::Dictionary(player),
        PoolStringArray(vec!["a".into(), "bc".into()]).into(),
        Variant::Nil,
    ]
}

/// Test vectors 62-64 and 102 of godot-format.md, as the engines wrote them.
#[test]
fn engine_test_vectors() {
    // store_var(42) little-endian, then with endian_swap / big_endian.
    let mut file = frames(LE, &[42.into()]);
    file.extend(frames(BE, &[42.into()]));
    assert_eq!(
        file,
        [8, 0, 0, 0, 2, 0, 0, 0, 42, 0, 0, 0, 0, 0, 0, 8, 2, 0, 0, 0, 42, 0, 0, 0]
    );
    // StreamPeer put_var("hi"), then big_endian.
    let mut peer = frames(LE, &["hi".into()]);
    peer.extend(frames(BE, &["hi".into()]));
    let hi = [4, 0, 0, 0, 2, 0, 0, 0, b'h', b'i', 0, 0];
    assert_eq!(peer[..4], [12, 0, 0, 0]);
    assert_eq!(peer[16..20], [0, 0, 0, 12]);
    assert_eq!((&peer[4..16], &peer[20..]), (&hi[..], &hi[..]));
    // PacketPeerStream ignores the stream's endianness.
    assert_eq!(
        frames(PPS, &[7.into()]),
        [8, 0, 0, 0, 2, 0, 0, 0, 7, 0, 0, 0]
    );
}

#[test]
fn prefix_helpers() {
    assert_eq!(BE.prefix(0x0102).unwrap(), [0, 0, 1, 2]);
    assert_eq!(LE.prefix(0x0102).unwrap(), [2, 1, 0, 0]);
    assert_eq!(BE.frame_len([0, 0, 1, 2]), 0x0102);
    assert_eq!(PPS.frame_len([2, 1, 0, 0]), 0x0102);
    assert_eq!(Framing::STORE_VAR, LE);
}

#[test]
fn values_one_by_one_then_clean_end() {
    for framing in [LE, BE, PPS] {
        let values = sample();
        let bytes = frames(framing, &values);
        let mut r = VarReader::new(&bytes[..], framing);
        for v in &values {
            assert_eq!(r.get_var::<Variant>().unwrap().as_ref(), Some(v));
        }
        assert_eq!(r.get_var::<Variant>().unwrap(), None);
        assert_eq!(r.get_var::<Variant>().unwrap(), None, "stays at the end");
        assert_eq!(r.position(), bytes.len());
        let all: Vec<Variant> = VarReader::new(&bytes[..], framing).read_all().unwrap();
        assert_eq!(all, values);
    }
}

#[test]
fn raw_frames_forward_unchanged() {
    let bytes = frames(BE, &sample());
    let mut r = VarReader::new(&bytes[..], BE);
    let mut w = VarWriter::new(Vec::new(), BE);
    while let Some(frame) = r.next_frame().unwrap() {
        w.put_frame(frame).unwrap();
    }
    assert_eq!(w.into_inner(), bytes);
    // Borrowed decoding from a frame.
    let bytes = frames(LE, &["borrowed".into()]);
    let mut r = VarReader::new(&bytes[..], LE);
    let frame = r.next_frame().unwrap().unwrap();
    let s: &str = Config::new().from_slice(frame).unwrap();
    assert_eq!(s, "borrowed");
}

#[test]
fn oversized_frame_is_refused_then_the_reader_stays_refused() {
    let mut bytes = frames(LE, &[1.into()]);
    bytes.extend(u32::MAX.to_le_bytes());
    bytes.extend([0; 8]);
    let mut r = VarReader::new(&bytes[..], LE);
    assert_eq!(r.get_var::<i32>().unwrap(), Some(1));
    let err = r.get_var::<Variant>().unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::FrameTooLarge { len, max: DEFAULT_MAX_FRAME } if *len == u32::MAX as usize
    ));
    assert_eq!(err.offset(), Some(12), "the offset of the length prefix");
    assert_eq!(r.position(), 16, "nothing of the frame was read");
    let again = r.get_var::<Variant>().unwrap_err();
    assert!(matches!(again.kind(), ErrorKind::Desynchronized));
    assert_eq!(again.offset(), Some(16));

    let small = VarReader::new(&frames(LE, &["abc".into()])[..], LE)
        .max_frame_len(11)
        .get_var::<Variant>()
        .unwrap_err();
    assert!(matches!(
        small.kind(),
        ErrorKind::FrameTooLarge { len: 12, max: 11 }
    ));
    // Exactly at the limit is fine.
    let ok = VarReader::new(&frames(LE, &["abc".into()])[..], LE)
        .max_frame_len(12)
        .get_var::<String>()
        .unwrap();
    assert_eq!(ok.as_deref(), Some("abc"));
}

#[test]
fn packet_peer_stream_limits_are_the_engines() {
    // 8 + n bytes: a PoolByteArray value of n bytes.
    let value = |n: usize| PoolByteArray(vec![7; n - 8]);
    // The largest value a default PacketPeerStream receives goes out...
    let mut w = VarWriter::new(Vec::new(), PPS);
    w.put_var(&value(65528)).unwrap();
    // ...one it could send but never receive does not, and nothing is written.
    let err = w.put_var(&value(65532)).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::FrameTooLarge {
            len: 65532,
            max: PACKET_PEER_STREAM_RECV_MAX
        }
    ));
    let wire = w.into_inner();
    assert_eq!(wire.len(), 4 + 65528);
    assert_eq!(
        VarReader::new(&wire[..], PPS)
            .read_all::<Variant>()
            .unwrap()
            .len(),
        1
    );

    // Reading accepts what the engine may send, 65532 bytes, and no more.
    let unlimited = |value: PoolByteArray| {
        let mut w = VarWriter::new(Vec::new(), PPS).max_frame_len(usize::MAX);
        w.put_var(&value).unwrap();
        w.into_inner()
    };
    let big = unlimited(value(65532));
    assert!(VarReader::new(&big[..], PPS)
        .get_var::<Variant>()
        .unwrap()
        .is_some());
    let bigger = unlimited(value(65536));
    let err = VarReader::new(&bigger[..], PPS)
        .get_var::<Variant>()
        .unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::FrameTooLarge {
            len: 65536,
            max: PACKET_PEER_STREAM_SEND_MAX
        }
    ));
}

#[test]
fn a_value_that_fails_to_encode_sends_nothing() {
    let mut w = VarWriter::new(Vec::new(), LE);
    w.put_var(&1).unwrap();
    let err = w.put_var(&u64::MAX).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::IntOutOfRange(..)));
    w.put_var(&2).unwrap();
    let all: Vec<i32> = VarReader::new(&w.get_ref()[..], LE).read_all().unwrap();
    assert_eq!(all, [1, 2]);
}

#[test]
fn truncated_frames_are_eof_errors_then_desynchronized() {
    let bytes = frames(BE, &["hello".into()]);
    for n in 1..bytes.len() {
        let mut r = VarReader::new(&bytes[..n], BE);
        let err = r.get_var::<Variant>().unwrap_err();
        assert!(err.is_eof(), "{n}: {err}");
        assert_eq!(err.offset(), Some(n), "{n}: where the missing bytes start");
        let what = if n < 4 { "a frame length" } else { "a frame" };
        assert!(
            matches!(err.kind(), ErrorKind::Eof(w) if *w == what),
            "{n}: {err}"
        );
        assert!(matches!(
            r.get_var::<Variant>().unwrap_err().kind(),
            ErrorKind::Desynchronized
        ));
    }
}

#[test]
fn a_bad_value_leaves_the_reader_at_the_next_frame() {
    let mut bytes = frames(LE, &["not an int".into()]);
    bytes.extend(frames(LE, &[7.into()]));
    let mut r = VarReader::new(&bytes[..], LE);
    let err = r.get_var::<i32>().unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::InvalidType { .. }));
    assert_eq!(
        err.offset(),
        Some(4),
        "offsets count from the stream's start"
    );
    assert_eq!(r.get_var::<i32>().unwrap(), Some(7));

    // A frame holding more than one value: the engine ignores the rest, we do not.
    let mut two = 16u32.to_le_bytes().to_vec();
    two.extend(godot_bin::to_vec(&1).unwrap());
    two.extend(godot_bin::to_vec(&2).unwrap());
    two.extend(frames(LE, &[3.into()]));
    let mut r = VarReader::new(&two[..], LE);
    let err = r.get_var::<i32>().unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::TrailingBytes));
    assert_eq!(err.offset(), Some(12));
    assert_eq!(r.get_var::<i32>().unwrap(), Some(3));
}

#[test]
fn the_iterator_skips_bad_values_and_stops_at_broken_frames() {
    let mut bytes = frames(LE, &[1.into(), "x".into(), 3.into()]);
    bytes.extend([9, 0]);
    let mut r = VarReader::new(&bytes[..], LE);
    let got: Vec<Result<i32, String>> = r
        .iter::<i32>()
        .map(|v| v.map_err(|e| format!("{:?}", e.kind())))
        .collect();
    assert_eq!(got.len(), 4, "{got:?}");
    assert_eq!(got[0], Ok(1));
    assert!(got[1].as_ref().unwrap_err().starts_with("InvalidType"));
    assert_eq!(got[2], Ok(3));
    assert!(got[3].as_ref().unwrap_err().starts_with("Eof"));
}

/// A source and sink that moves bytes in small pieces and fails with `WouldBlock`,
/// `TimedOut` or `Interrupted` in between (never twice in a row), like a non-blocking
/// or timed-out socket.
struct Flaky<'a> {
    data: &'a [u8],
    plan: Vec<u8>,
    step: usize,
    failed: bool,
}

impl<'a> Flaky<'a> {
    fn new(data: &'a [u8], plan: Vec<u8>) -> Self {
        Flaky {
            data,
            plan,
            step: 0,
            failed: false,
        }
    }

    /// The next action: `Err` to fail, else how many bytes to move at most.
    fn next(&mut self) -> io::Result<usize> {
        let p = self.plan.get(self.step % self.plan.len().max(1)).copied();
        self.step += 1;
        let kind = match p.unwrap_or(255) % 8 {
            _ if self.failed => None,
            0 => Some(io::ErrorKind::WouldBlock),
            1 => Some(io::ErrorKind::TimedOut),
            2 => Some(io::ErrorKind::Interrupted),
            _ => None,
        };
        self.failed = kind.is_some();
        match kind {
            Some(kind) => Err(kind.into()),
            None => Ok(usize::from(p.unwrap_or(255) % 8).max(3)),
        }
    }
}

impl Read for Flaky<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.next()?.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

impl Write for Flaky<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.next()?.min(buf.len());
        WRITTEN.with(|w| w.borrow_mut().extend_from_slice(&buf[..n]));
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

thread_local! {
    static WRITTEN: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn without_nul(strings: Vec<String>) -> Vec<String> {
    strings.into_iter().map(|s| s.replace('\0', "")).collect()
}

/// The strings a writer sends: those without a NUL.
fn sendable(strings: &[String]) -> Vec<String> {
    strings
        .iter()
        .filter(|s| !s.contains('\0'))
        .cloned()
        .collect()
}

fn retrying<T>(mut f: impl FnMut() -> godot_bin::Result<T>) -> godot_bin::Result<T> {
    loop {
        match f() {
            Err(e) if matches!(e.kind(), ErrorKind::Io(io) if io.kind() != io::ErrorKind::UnexpectedEof) =>
                {}
            other => return other,
        }
    }
}

#[test]
fn reads_resume_after_would_block_and_timeouts() {
    fn prop(plan: Vec<u8>, strings: Vec<String>) -> TestResult {
        // Godot cannot send a NUL in a String (tested apart): taken out, not
        // discarded, so every generated case runs.
        let strings = without_nul(strings);
        let values: Vec<Variant> = strings.iter().map(|s| s.as_str().into()).collect();
        let bytes = frames(BE, &values);
        let mut r = VarReader::new(Flaky::new(&bytes, plan), BE);
        let mut got = Vec::new();
        while let Some(v) = retrying(|| r.get_var::<Variant>()).unwrap() {
            got.push(v);
        }
        TestResult::from_bool(got == values && r.position() == bytes.len())
    }
    QuickCheck::new()
        .tests(300)
        .quickcheck(prop as fn(Vec<u8>, Vec<String>) -> TestResult);
}

#[test]
fn writes_resume_after_would_block_and_timeouts() {
    fn prop(plan: Vec<u8>, strings: Vec<String>) -> TestResult {
        WRITTEN.with(|w| w.borrow_mut().clear());
        let mut w = VarWriter::new(Flaky::new(&[], plan), PPS);
        for s in &strings {
            // An I/O error leaves the frame queued: it must not be sent twice. A
            // String with a NUL is refused before anything is queued, even behind a
            // frame still pending.
            if let Err(e) = w.put_var(s) {
                if s.contains('\0') {
                    assert!(matches!(e.kind(), ErrorKind::Unrepresentable(_)), "{e}");
                } else {
                    assert!(matches!(e.kind(), ErrorKind::Io(_)), "{e}");
                }
            } else {
                assert!(!s.contains('\0'), "{s:?} was taken");
            }
        }
        retrying(|| w.flush()).unwrap();
        let written = WRITTEN.with(|w| w.borrow().clone());
        let got: Vec<String> = VarReader::new(&written[..], PPS).read_all().unwrap();
        TestResult::from_bool(got == sendable(&strings) && w.pending() == 0)
    }
    QuickCheck::new()
        .tests(300)
        .quickcheck(prop as fn(Vec<u8>, Vec<String>) -> TestResult);
}

#[test]
fn random_bytes_never_panic() {
    fn prop(bytes: Vec<u8>, framing: u8) -> bool {
        let framing = [LE, BE, PPS][framing as usize % 3];
        let mut r = VarReader::new(&bytes[..], framing).max_frame_len(64);
        for _ in 0..bytes.len() + 2 {
            match r.get_var::<Variant>() {
                Ok(None) => return true,
                Ok(Some(_)) => {}
                Err(e) if matches!(e.kind(), ErrorKind::Desynchronized) => return true,
                Err(e) => assert!(e.offset().is_some(), "{e}"),
            }
        }
        false
    }
    QuickCheck::new()
        .tests(2000)
        .quickcheck(prop as fn(Vec<u8>, u8) -> bool);
}

#[test]
fn a_lying_length_costs_no_memory() {
    // The prefix claims 8 MiB (the limit); only 100 bytes follow.
    let mut bytes = (DEFAULT_MAX_FRAME as u32).to_le_bytes().to_vec();
    bytes.extend([0; 100]);
    let (err, heap) = peak(|| {
        VarReader::new(&bytes[..], LE)
            .get_var::<Variant>()
            .unwrap_err()
    });
    assert!(err.is_eof(), "{err}");
    assert!(heap < 100_000, "peak heap {heap} bytes");
}

#[test]
fn save_files_create_append_read() {
    let dir = std::env::temp_dir().join(format!("godot_bin-framing-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let g4 = Config::new().dialect(Dialect::Godot4);
    for (framing, name) in [(LE, "le.dat"), (BE, "be.dat")] {
        let path = dir.join(name);
        let _ = std::fs::remove_file(&path);
        // Appending creates a missing file.
        VarWriter::append(&path, framing)
            .unwrap()
            .with_config(g4)
            .put_var(&1)
            .unwrap();
        let mut w = VarWriter::append(&path, framing).unwrap().with_config(g4);
        for v in sample() {
            w.put_var(&v).unwrap();
        }
        drop(w);
        let mut expected = vec![Variant::Int(1)];
        expected.extend(sample());
        let values: Vec<Variant> = VarReader::open(&path, framing)
            .unwrap()
            .with_config(g4)
            .read_all()
            .unwrap();
        assert_eq!(values, expected);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            {
                let mut w = VarWriter::new(Vec::new(), framing).with_config(g4);
                expected.iter().for_each(|v| w.put_var(v).unwrap());
                w.into_inner()
            },
            "byte for byte what put_var writes"
        );

        // The other endianness, or a cut-off last frame, cannot be appended to.
        let other = if framing == LE { BE } else { LE };
        let err = VarWriter::append(&path, other).unwrap_err();
        assert!(err.is_eof(), "{err}");
        assert_eq!(err.offset(), Some(0));
        let len = std::fs::metadata(&path).unwrap().len();
        let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(len - 1).unwrap();
        let err = VarWriter::append(&path, framing).unwrap_err();
        assert!(err.is_eof(), "{err}");
        let last = len as usize - 4 - 4; // a Nil: prefix and 4-byte header
        assert_eq!(err.offset(), Some(last));

        // create() truncates.
        VarWriter::create(&path, framing)
            .unwrap()
            .put_var("fresh")
            .unwrap();
        let values: Vec<String> = VarReader::open(&path, framing).unwrap().read_all().unwrap();
        assert_eq!(values, ["fresh"]);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn packets() {
    let g4 = Config::new().dialect(Dialect::Godot4);
    let packet =
        framing::encode_packet(g4, &Variant::from(godot_bin::Vector2i::new(1, -2))).unwrap();
    assert_eq!(packet, [6, 0, 0, 0, 1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff]);
    assert_eq!(
        framing::decode_packet::<Variant>(g4, &packet).unwrap(),
        godot_bin::Vector2i::new(1, -2).into()
    );
    let s: &str = framing::decode_packet(g4, &[4, 0, 0, 0, 1, 0, 0, 0, b'a', 0, 0, 0]).unwrap();
    assert_eq!(s, "a");
    // Godot's encode_buffer_max_size: the value alone may be 8 MiB, not more.
    let fits = PoolByteArray(vec![0; PACKET_PEER_MAX - 8]);
    assert_eq!(
        framing::encode_packet(g4, &fits).unwrap().len(),
        PACKET_PEER_MAX
    );
    let err = framing::encode_packet(g4, &PoolByteArray(vec![0; PACKET_PEER_MAX - 7])).unwrap_err();
    assert!(matches!(
        err.kind(),
        ErrorKind::FrameTooLarge {
            max: PACKET_PEER_MAX,
            ..
        }
    ));
}

#[test]
fn base64() {
    let g3 = Config::new();
    let g4 = Config::new().dialect(Dialect::Godot4);
    assert_eq!(framing::variant_to_base64(g3, &1).unwrap(), "AgAAAAEAAAA=");
    // Test vector 61 and the engines' own output (tests/live_godot.rs checks more).
    assert_eq!(
        framing::variant_to_base64(g3, &Vector3::new(1.0, 2.0, 3.0)).unwrap(),
        "BwAAAAAAgD8AAABAAABAQA=="
    );
    assert_eq!(
        framing::variant_to_base64(g4, &Vector3::new(1.0, 2.0, 3.0)).unwrap(),
        "CQAAAAAAgD8AAABAAABAQA=="
    );
    for text in [
        "AgAAAAEAAAA=",
        "AgAAAA\nEAAAA=",
        "AgAAAAEAAAA=\r\n",
        " AgAAAAEAAAA= ",
    ] {
        assert_eq!(
            framing::base64_to_variant::<i64>(g3, text).unwrap(),
            1,
            "{text:?}"
        );
    }
    for text in ["not base64!", "AgAAAAEAAAA", "AgAAAAEAAAA=junk"] {
        let err = framing::base64_to_variant::<Variant>(g3, text).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::InvalidBase64(_)),
            "{text:?}: {err}"
        );
    }
    // Valid Base64 of bytes that are no value.
    let err = framing::base64_to_variant::<Variant>(g3, "AgAAAA==").unwrap_err();
    assert!(err.is_eof(), "{err}");
}
