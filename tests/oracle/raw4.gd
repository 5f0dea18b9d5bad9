# Raw StreamPeer packets and Godot 4 (4.6), for tests/raw_engines.rs.
#
#   ORACLE_MODE=gen ORACLE_SEED=42 ORACLE_COUNT=500 godot4 --headless -s raw4.gd
#       From the seed, ORACLE_COUNT random packets written with StreamPeerBuffer's
#       put_* calls (random byte order, 1 to 6 fields of random kinds, edge values
#       included). One JSON line each:
#       {"i": 0, "big": true, "layout": "u8 str0 vec3", "hex": "...", "vals": [...]}
#   ORACLE_MODE=read ORACLE_IN=file godot4 --headless -s raw4.gd
#       Each input line "big layout hex" (big is 0 or 1, the layout's fields joined
#       by commas) is read back with the matching get_* calls: {"i": 0, "vals": [...]}
#
# vals holds each field canonically (strings as the engine's own readers get them back,
# but for Godot 3's put_string, whose get_string mangles characters above 0x7F: the
# string written): integers in decimal (u64 as Godot's signed int),
# floats, halves and vectors as the little-endian bytes put_float / put_half /
# put_double write for them alone, strings as the hex of their UTF-8, var as the hex of
# var_to_bytes, bytes in hex.
extends SceneTree

const KINDS := ["u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "half", "f32", "f64",
	"bool", "str0", "utf8", "str4", "var", "vec2", "vec3", "quat", "color", "bytes"]

var rng := RandomNumberGenerator.new()
var buf := PackedByteArray()

func _init():
	buf.resize(8)
	var mode := OS.get_environment("ORACLE_MODE")
	if mode == "gen":
		rng.seed = int(OS.get_environment("ORACLE_SEED"))
		for i in int(OS.get_environment("ORACLE_COUNT")):
			gen(i)
	else:
		var f := FileAccess.open(OS.get_environment("ORACLE_IN"), FileAccess.READ)
		var i := 0
		while not f.eof_reached():
			var line := f.get_line().strip_edges()
			if line == "":
				continue
			var parts := line.split(" ")
			var s := StreamPeerBuffer.new()
			s.data_array = PackedByteArray() if parts.size() < 3 else parts[2].hex_decode()
			s.big_endian = parts[0] == "1"
			var vals := []
			for kind in parts[1].split(","):
				vals.append(read(s, kind))
			print(JSON.stringify({"i": i, "vals": vals, "left": s.get_available_bytes()}))
			i += 1
	quit(0)

func pick(a: Array):
	return a[rng.randi_range(0, a.size() - 1)]

func f32_bits(bits: int) -> float:
	buf.encode_u32(0, bits)
	return buf.decode_float(0)

func f64_bits() -> float:
	buf.encode_u32(0, rng.randi())
	buf.encode_u32(4, rng.randi())
	return buf.decode_double(0)

func rfloat() -> float:
	match rng.randi_range(0, 5):
		0:
			return pick([0.0, -0.0, 1.0, -1.5, INF, -INF, NAN, 0.1, 65504.0, 65520.0, 1e-5, 6e-8, 3.4e38])
		1:
			return rng.randf_range(-1000.0, 1000.0)
		2:
			return float(rng.randi_range(-100, 100)) / 4.0
		_:
			return f32_bits(rng.randi())

func rint(bits: int, signed: bool) -> int:
	var v: int
	match rng.randi_range(0, 3):
		0:
			v = pick([0, 1, -1, (1 << (bits - 1)) - 1, -(1 << (bits - 1)), 1 << (bits - 1), 255, 128])
		1:
			v = rng.randi_range(-300, 300)
		_:
			v = (rng.randi() << 32) | rng.randi()
	if bits < 64:
		v = v & ((1 << bits) - 1)
		if signed and v >= (1 << (bits - 1)):
			v -= 1 << bits
	return v

func rstring(ascii: bool) -> String:
	var s := ""
	for n in rng.randi_range(0, 12):
		var c: int
		match rng.randi_range(0, 3 if not ascii else 1):
			0:
				c = rng.randi_range(1, 127)
			1:
				c = pick([32, 34, 92, 10, 9, 127, 65, 122])
			2:
				c = pick([0xe9, 0xff, 0x80, 0x3b1, 0x20ac, 0x4e2d, 0xfeff])
			_:
				c = pick([0x1f600, 0x10ffff, 0x10000])
		s += String.chr(c)
	return s

func rvar():
	match rng.randi_range(0, 6):
		0:
			return rint(64, true)
		1:
			return rfloat()
		2:
			# No leading BOM: the engine's writer does not double it, so it would not
			# come back from a round trip through the engine.
			var t := rstring(false)
			while t.begins_with(String.chr(0xfeff)):
				t = t.substr(1)
			return t
		3:
			return Vector3(rng.randf(), rng.randf(), -rng.randf())
		4:
			return [rint(32, true), rstring(true), null]
		5:
			return {"k": rint(8, true), 1: true}
		_:
			return null

func le(kind: String, v) -> String:
	var s := StreamPeerBuffer.new()
	match kind:
		"half":
			s.put_half(v)
		"f32":
			s.put_float(v)
		"f64":
			s.put_double(v)
		"vec2":
			s.put_float(v.x); s.put_float(v.y)
		"vec3":
			s.put_float(v.x); s.put_float(v.y); s.put_float(v.z)
		"quat":
			s.put_float(v.x); s.put_float(v.y); s.put_float(v.z); s.put_float(v.w)
		"color":
			s.put_float(v.r); s.put_float(v.g); s.put_float(v.b); s.put_float(v.a)
	return s.data_array.hex_encode()

func canon(kind: String, v) -> String:
	match kind:
		"half", "f32", "f64", "vec2", "vec3", "quat", "color":
			return le(kind, v)
		"str0", "utf8", "str4":
			return v.to_utf8_buffer().hex_encode()
		"var":
			return var_to_bytes(v).hex_encode()
		"bytes", "rest":
			return v.hex_encode()
	return str(v)

func gen(i: int):
	var s := StreamPeerBuffer.new()
	s.big_endian = rng.randi_range(0, 1) == 1
	var kinds := []
	var vals := []
	for n in rng.randi_range(1, 6):
		var kind: String = pick(KINDS)
		var v
		match kind:
			"u8":
				v = rint(8, false); s.put_u8(v)
			"i8":
				v = rint(8, true); s.put_8(v)
			"u16":
				v = rint(16, false); s.put_u16(v)
			"i16":
				v = rint(16, true); s.put_16(v)
			"u32":
				v = rint(32, false); s.put_u32(v)
			"i32":
				v = rint(32, true); s.put_32(v)
			"u64":
				v = rint(64, false); s.put_u64(v)
			"i64":
				v = rint(64, true); s.put_64(v)
			"half":
				v = rfloat(); s.put_half(v)
			"f32":
				v = rfloat(); s.put_float(v)
			"f64":
				v = f64_bits() if rng.randi_range(0, 1) == 0 else rfloat(); s.put_double(v)
			"bool":
				v = rng.randi_range(0, 1); s.put_u8(v)
			"str0":
				v = rstring(false); s.put_data(v.to_utf8_buffer()); s.put_u8(0)
			"utf8":
				v = rstring(false); s.put_utf8_string(v)
			"str4":
				v = rstring(true); s.put_string(v)
			"var":
				v = rvar(); s.put_var(v)
			"vec2":
				v = Vector2(rfloat(), rfloat()); s.put_float(v.x); s.put_float(v.y)
			"vec3":
				v = Vector3(rfloat(), rfloat(), rfloat()); s.put_float(v.x); s.put_float(v.y); s.put_float(v.z)
			"quat":
				v = Quaternion(rfloat(), rfloat(), rfloat(), rfloat()); s.put_float(v.x); s.put_float(v.y); s.put_float(v.z); s.put_float(v.w)
			"color":
				v = Color(rfloat(), rfloat(), rfloat(), rfloat()); s.put_float(v.r); s.put_float(v.g); s.put_float(v.b); s.put_float(v.a)
			"bytes":
				v = PackedByteArray()
				for k in rng.randi_range(0, 9):
					v.append(rng.randi_range(0, 255))
				s.put_u32(v.size()); s.put_data(v)
		kinds.append(kind)
		vals.append(canon(kind, v))
	if rng.randi_range(0, 4) == 0:
		var rest := PackedByteArray()
		for k in rng.randi_range(0, 9):
			rest.append(rng.randi_range(0, 255))
		s.put_data(rest)
		kinds.append("rest")
		vals.append(canon("rest", rest))
	# Strings as the engine's own readers get them (they drop a leading BOM).
	s.seek(0)
	for k in kinds.size():
		var got := read(s, kinds[k])
		if kinds[k] in ["str0", "utf8", "str4"]:
			vals[k] = got
	print(JSON.stringify({"i": i, "big": s.big_endian, "layout": " ".join(kinds), "hex": s.data_array.hex_encode(), "vals": vals}))

func read(s: StreamPeerBuffer, kind: String) -> String:
	match kind:
		"u8", "bool":
			return str(s.get_u8())
		"i8":
			return str(s.get_8())
		"u16":
			return str(s.get_u16())
		"i16":
			return str(s.get_16())
		"u32":
			return str(s.get_u32())
		"i32":
			return str(s.get_32())
		"u64":
			return str(s.get_u64())
		"i64":
			return str(s.get_64())
		"half":
			return le(kind, s.get_half())
		"f32":
			return le(kind, s.get_float())
		"f64":
			return le(kind, s.get_double())
		"str0":
			var b := PackedByteArray()
			while s.get_available_bytes() > 0:
				var c := s.get_u8()
				if c == 0:
					break
				b.append(c)
			return b.get_string_from_utf8().to_utf8_buffer().hex_encode()
		"utf8":
			return s.get_utf8_string().to_utf8_buffer().hex_encode()
		"str4":
			return s.get_string().to_utf8_buffer().hex_encode()
		"var":
			return var_to_bytes(s.get_var()).hex_encode()
		"vec2":
			return le(kind, Vector2(s.get_float(), s.get_float()))
		"vec3":
			return le(kind, Vector3(s.get_float(), s.get_float(), s.get_float()))
		"quat":
			return le(kind, Quaternion(s.get_float(), s.get_float(), s.get_float(), s.get_float()))
		"color":
			return le(kind, Color(s.get_float(), s.get_float(), s.get_float(), s.get_float()))
		"bytes":
			return s.get_data(s.get_u32())[1].hex_encode()
		"rest":
			return s.get_data(s.get_available_bytes())[1].hex_encode()
	return "?"
