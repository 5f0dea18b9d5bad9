# Random values made by Godot 4 (4.6), for tests/random_from_engines.rs.
#
#   ORACLE_SEED=42 ORACLE_COUNT=2000 godot4 --headless --no-header --path tests/oracle/g4 -s ../random4.gd
#
# From the seed, the engine's RandomNumberGenerator makes ORACLE_COUNT values of every
# Variant type Godot 4 can make without objects (Callable and Signal are the empty
# ones, RIDs come from rid_from_int64), typed Array[T] and Dictionary[K, V] of builtin
# types included, nested up to depth 6, with edge numbers (0, -0.0, INF, -INF, NaN
# with any payload, int limits, subnormals, floats exact in f32 and not), strings with
# control characters, quotes, backslashes, `?`, non-ASCII and astral characters, and
# dictionary keys of every type, containers included.
# One JSON line a value goes to stdout:
#   {"i": 0, "np": false, "hex": "0200000001000000", "text": "31"}
# hex is var_to_bytes(value), text the UTF-8 hex of var_to_str(value) (hex because the
# engines' JSON escapes of control characters are not JSON), np says whether the value
# holds a NodePath (whose padding the engine does not write).
extends SceneTree

const MAX_DEPTH := 6

var rng := RandomNumberGenerator.new()
var buf := PackedByteArray()
var has_np := false

func pick(a: Array):
	return a[rng.randi_range(0, a.size() - 1)]

func chance(p: float) -> bool:
	return rng.randf() < p

# A double from its bits.
func f64_bits(hi: int, lo: int) -> float:
	buf.encode_u32(0, lo)
	buf.encode_u32(4, hi)
	return buf.decode_double(0)

# The f32 with these bits, as a double.
func f32_bits(bits: int) -> float:
	buf.encode_u32(0, bits)
	return buf.decode_float(0)

func rint32() -> int:
	match rng.randi_range(0, 7):
		0:
			return pick([0, 1, -1, 2147483647, -2147483648, 2147483646, -2147483647, 255, 256, -256, 65535, 65536])
		1:
			return rng.randi_range(-10, 10)
		2:
			return rng.randi_range(-1000000, 1000000)
		_:
			var u := rng.randi()
			return u - 4294967296 if u >= 2147483648 else u

func rint() -> int:
	match rng.randi_range(0, 9):
		0, 1, 2:
			return rint32()
		3:
			return pick([
				9223372036854775807, -9223372036854775807 - 1, 2147483648, -2147483649,
				4294967295, 4294967296, -4294967296, 9007199254740993, -9007199254740993,
				1099511627776, 9223372036854775806, 100000000000000000])
		_:
			# Random 64 bits.
			var hi := rng.randi()
			var lo := rng.randi()
			return (hi << 32) | lo

func rfloat() -> float:
	match rng.randi_range(0, 15):
		0:
			return pick([0.0, f64_bits(0x80000000, 0), INF, -INF, NAN, f64_bits(0xfff80000, 0)])
		1:
			# Any bits: NaN payloads, subnormals, huge and tiny numbers.
			return f64_bits(rng.randi(), rng.randi())
		2:
			# Exact in f32.
			return f32_bits(rng.randi())
		3:
			return float(rng.randi_range(-100, 100))
		4:
			return rng.randf() * 2000.0 - 1000.0
		5:
			return pick([
				5e-324, 1.401298464324817e-45, 1e-310, 1e-45, 1e-38, 1.1754943508222875e-38,
				2.2250738585072014e-308, 4.9406564584124654e-324, 1e-300, 1e-7, 1e-5, 0.0001])
		6:
			return pick([
				1e308, 1.7976931348623157e308, 3.4028234663852886e38, 3.4028235677973366e38,
				1e39, 1e38, 16777216.0, 16777217.0, 9007199254740992.0, 9007199254740993.0,
				1e15, 1e16, 1e17, 1e20, 1e21, 1e22, 1e23, 123456789012.345, 4294967296.0])
		7:
			return pick([0.1, 0.2, 0.3, 1.0 / 3.0, 2.0 / 3.0, 0.5, 0.25, 1.5, -0.1, 3.14159, 2.718281828459045, 100.0, 1000000.0, 0.999999, 1.000001])
		8:
			var m := rng.randf()
			var e := rng.randi_range(-40, 40)
			var s := -1.0 if chance(0.5) else 1.0
			return s * m * pow(10.0, e)
		9:
			var p := rng.randi_range(-1074, 1023)
			return pow(2.0, p) * (-1.0 if chance(0.3) else 1.0)
		10:
			# NaNs of every kind.
			return f64_bits(pick([0x7ff00000, 0xfff00000, 0x7ff80000, 0xfff80000]) | rng.randi_range(0, 0xfffff), rng.randi() | 1)
		11:
			return float(rint())
		12:
			return float(rng.randi_range(-100000, 100000)) / pick([10.0, 100.0, 1000.0, 8.0, 1024.0, 3.0, 7.0])
		_:
			return rng.randfn(0.0, 1000.0)

# A component of a math type (stored as f32 by the engine).
func rreal() -> float:
	match rng.randi_range(0, 9):
		0:
			return pick([0.0, f32_bits(0x80000000), INF, -INF, NAN, f32_bits(0xffc00000), f32_bits(0x7f7fffff), f32_bits(0x00000001), f32_bits(0x00800000), f32_bits(0x807fffff)])
		1, 2:
			return f32_bits(rng.randi())
		3, 4:
			return float(rng.randi_range(-100, 100))
		5:
			return float(rng.randi_range(-100000, 100000)) / pick([10.0, 100.0, 1000.0, 8.0, 3.0])
		6:
			var m := rng.randf()
			var e := rng.randi_range(-45, 38)
			return m * pow(10.0, e) * (-1.0 if chance(0.5) else 1.0)
		7:
			# NaNs with payloads and signs.
			return f32_bits(pick([0x7f800000, 0xff800000]) | rng.randi_range(1, 0x7fffff))
		_:
			return rfloat()

func rchar() -> String:
	match rng.randi_range(0, 11):
		0, 1, 2, 3:
			return pick(["a", "b", "z", "A", "Z", "0", "9", "_", "x", "y", "k", "Q"])
		4:
			return pick(["\"", "\\", "?", "'", "{", "}", "[", "]", ":", ",", "/", "=", "(", ")", " ", "@", "$", "%", "#", ".", "-", "+", "e", "&", "^", "*", ";", "<", ">", "|", "~", "`", "!"])
		5:
			# Control characters (never NUL: a Godot String cannot hold it).
			return char(pick([1, 7, 8, 9, 10, 11, 12, 13, 27, 31, 127, rng.randi_range(1, 31)]))
		6:
			return char(rng.randi_range(0x80, 0xff))
		7:
			return char(pick([0xe9, 0x65e5, 0x672c, 0x2028, 0x2029, 0xfeff, 0xfffd, 0xffff, 0xfffe, 0x200b, 0x85, 0xa0, 0x3000, 0x7ff, 0x800]))
		8:
			return char(pick([rng.randi_range(0x100, 0xd7ff), rng.randi_range(0xe000, 0xfffd)]))
		9:
			# Astral characters.
			return char(pick([0x1f600, 0x10000, 0x10ffff, 0x1d11e, rng.randi_range(0x10000, 0x10ffff)]))
		10:
			return "??"
		_:
			return pick(["\\n", "\\\"", "\"\"", "\\\\", "?=", "??(", "\r\n", "\t"])

func rstring() -> String:
	var n: int
	match rng.randi_range(0, 5):
		0:
			n = 0
		1:
			n = rng.randi_range(1, 40)
		_:
			n = rng.randi_range(1, 8)
	var s := ""
	for _k in range(n):
		s += rchar()
	# A leading BOM is dropped when the engine reads the string back.
	while s.length() > 0 and s.unicode_at(0) == 0xfeff:
		s = s.substr(1)
	return s

func rname() -> String:
	if chance(0.1):
		return pick([".", "..", "root", "@Node@2", "%Unique", "a b", "Node2D"])
	var s := ""
	for _k in range(rng.randi_range(1, 6)):
		var c := rchar()
		if c.find("/") < 0 and c.find(":") < 0:
			s += c
	if s == "" or s.unicode_at(0) == 0xfeff:
		s = "n" + s
	return s

func rnodepath() -> NodePath:
	has_np = true
	if chance(0.1):
		return NodePath(pick(["", "/", ".", "..", ":p", "/root", "a/b:c", "/root/x", ":p:q"]))
	var s := "/" if chance(0.3) else ""
	var names := rng.randi_range(0, 4)
	var subs := rng.randi_range(0, 3)
	if names == 0 and subs == 0:
		names = 1
	for k in range(names):
		if k > 0:
			s += "/"
		s += rname()
	for _k in range(subs):
		s += ":" + rname()
	return NodePath(s)

func rvec2() -> Vector2:
	return Vector2(rreal(), rreal())

func rvec3() -> Vector3:
	return Vector3(rreal(), rreal(), rreal())

func rvec4() -> Vector4:
	return Vector4(rreal(), rreal(), rreal(), rreal())

func rbasis() -> Basis:
	return Basis(rvec3(), rvec3(), rvec3())

func rcolor() -> Color:
	if chance(0.3):
		return Color(rng.randf(), rng.randf(), rng.randf(), pick([1.0, rng.randf()]))
	return Color(rreal(), rreal(), rreal(), rreal())

func pool_len() -> int:
	match rng.randi_range(0, 5):
		0:
			return 0
		1:
			return rng.randi_range(9, 64)
		_:
			return rng.randi_range(1, 8)

const SCALARS := [TYPE_NIL, TYPE_BOOL, TYPE_INT, TYPE_FLOAT, TYPE_STRING, TYPE_VECTOR2, TYPE_VECTOR2I, TYPE_RECT2, TYPE_RECT2I, TYPE_VECTOR3, TYPE_VECTOR3I, TYPE_TRANSFORM2D, TYPE_VECTOR4, TYPE_VECTOR4I, TYPE_PLANE, TYPE_QUATERNION, TYPE_AABB, TYPE_BASIS, TYPE_TRANSFORM3D, TYPE_PROJECTION, TYPE_COLOR, TYPE_STRING_NAME, TYPE_NODE_PATH, TYPE_RID, TYPE_CALLABLE, TYPE_SIGNAL]
const POOLS := [TYPE_PACKED_BYTE_ARRAY, TYPE_PACKED_INT32_ARRAY, TYPE_PACKED_INT64_ARRAY, TYPE_PACKED_FLOAT32_ARRAY, TYPE_PACKED_FLOAT64_ARRAY, TYPE_PACKED_STRING_ARRAY, TYPE_PACKED_VECTOR2_ARRAY, TYPE_PACKED_VECTOR3_ARRAY, TYPE_PACKED_COLOR_ARRAY, TYPE_PACKED_VECTOR4_ARRAY]

func rof(t: int, depth: int):
	match t:
		TYPE_NIL:
			return null
		TYPE_BOOL:
			return chance(0.5)
		TYPE_INT:
			return rint()
		TYPE_FLOAT:
			return rfloat()
		TYPE_STRING:
			return rstring()
		TYPE_VECTOR2:
			return rvec2()
		TYPE_VECTOR2I:
			return Vector2i(rint32(), rint32())
		TYPE_RECT2:
			return Rect2(rreal(), rreal(), rreal(), rreal())
		TYPE_RECT2I:
			return Rect2i(rint32(), rint32(), rint32(), rint32())
		TYPE_VECTOR3:
			return rvec3()
		TYPE_VECTOR3I:
			return Vector3i(rint32(), rint32(), rint32())
		TYPE_TRANSFORM2D:
			return Transform2D(rvec2(), rvec2(), rvec2())
		TYPE_VECTOR4:
			return rvec4()
		TYPE_VECTOR4I:
			return Vector4i(rint32(), rint32(), rint32(), rint32())
		TYPE_PLANE:
			return Plane(rreal(), rreal(), rreal(), rreal())
		TYPE_QUATERNION:
			return Quaternion(rreal(), rreal(), rreal(), rreal())
		TYPE_AABB:
			return AABB(rvec3(), rvec3())
		TYPE_BASIS:
			return rbasis()
		TYPE_TRANSFORM3D:
			return Transform3D(rbasis(), rvec3())
		TYPE_PROJECTION:
			return Projection(rvec4(), rvec4(), rvec4(), rvec4())
		TYPE_COLOR:
			return rcolor()
		TYPE_STRING_NAME:
			return StringName(rstring())
		TYPE_NODE_PATH:
			return rnodepath()
		TYPE_RID:
			return rid_from_int64(pick([0, 1, rint()]))
		TYPE_CALLABLE:
			return Callable()
		TYPE_SIGNAL:
			return Signal()
		TYPE_PACKED_BYTE_ARRAY:
			var a := PackedByteArray()
			for _k in range(pool_len()):
				a.append(rng.randi_range(0, 255))
			return a
		TYPE_PACKED_INT32_ARRAY:
			var a := PackedInt32Array()
			for _k in range(pool_len()):
				a.append(rint32())
			return a
		TYPE_PACKED_INT64_ARRAY:
			var a := PackedInt64Array()
			for _k in range(pool_len()):
				a.append(rint())
			return a
		TYPE_PACKED_FLOAT32_ARRAY:
			var a := PackedFloat32Array()
			for _k in range(pool_len()):
				a.append(rreal())
			return a
		TYPE_PACKED_FLOAT64_ARRAY:
			var a := PackedFloat64Array()
			for _k in range(pool_len()):
				a.append(rfloat())
			return a
		TYPE_PACKED_STRING_ARRAY:
			var a := PackedStringArray()
			for _k in range(pool_len() / 2):
				a.append(rstring())
			return a
		TYPE_PACKED_VECTOR2_ARRAY:
			var a := PackedVector2Array()
			for _k in range(pool_len()):
				a.append(rvec2())
			return a
		TYPE_PACKED_VECTOR3_ARRAY:
			var a := PackedVector3Array()
			for _k in range(pool_len()):
				a.append(rvec3())
			return a
		TYPE_PACKED_COLOR_ARRAY:
			var a := PackedColorArray()
			for _k in range(pool_len()):
				a.append(rcolor())
			return a
		TYPE_PACKED_VECTOR4_ARRAY:
			var a := PackedVector4Array()
			for _k in range(pool_len()):
				a.append(rvec4())
			return a
		TYPE_ARRAY:
			return rarray(depth)
		TYPE_DICTIONARY:
			return rdict(depth)
	return null

func container_len(depth: int) -> int:
	var most: int = [10, 6, 4, 3, 2, 2, 1][depth]
	if chance(0.15):
		return 0
	return rng.randi_range(1, most)

# An element type for a typed container: any builtin type but NIL.
func relement_type(depth: int) -> int:
	if depth + 1 < MAX_DEPTH and chance(0.15):
		return pick([TYPE_ARRAY, TYPE_DICTIONARY])
	if chance(0.2):
		return pick(POOLS)
	var t: int = pick(SCALARS)
	return TYPE_INT if t == TYPE_NIL else t

func rarray(depth: int) -> Array:
	var a := []
	if chance(0.3):
		# Array[T]: elements of that type only.
		var t := relement_type(depth)
		for _k in range(container_len(depth)):
			a.append(rof(t, depth + 1))
		return Array(a, t, &"", null)
	for _k in range(container_len(depth)):
		a.append(rvalue(depth + 1))
	return a

# A dictionary key: any value, often a short string, int or float that may collide
# with another key (1 and 1.0 differ, "a" and &"a" do not, -0.0 and 0.0 do not).
func rkey(depth: int):
	if chance(0.1):
		return pick(["a", &"a", "", &"", 1, 1.0, 0, 0.0, f64_bits(0x80000000, 0), NAN, null, true, false])
	if chance(0.25):
		return rstring()
	if chance(0.15):
		return rint()
	return rvalue(depth + 1)

func rdict(depth: int) -> Dictionary:
	var d := {}
	if chance(0.3):
		# Dictionary[K, V]; NIL stands for Variant (an untyped side).
		var kt := relement_type(depth) if chance(0.8) else TYPE_NIL
		var vt := relement_type(depth) if chance(0.8) else TYPE_NIL
		for _k in range(container_len(depth)):
			var key = rkey(depth) if kt == TYPE_NIL else rof(kt, depth + 1)
			d[key] = rvalue(depth + 1) if vt == TYPE_NIL else rof(vt, depth + 1)
		return Dictionary(d, kt, &"", null, vt, &"", null)
	if depth < 2 and chance(0.08):
		for _k in range(rng.randi_range(17, 40)):
			d[rkey(MAX_DEPTH)] = rvalue(depth + 1)
		return d
	for _k in range(container_len(depth)):
		d[rkey(depth)] = rvalue(depth + 1)
	return d

func rvalue(depth: int):
	if depth < MAX_DEPTH:
		var p: float = [0.5, 0.35, 0.3, 0.25, 0.2, 0.15][depth]
		if chance(p):
			return rof(pick([TYPE_ARRAY, TYPE_DICTIONARY]), depth)
	if chance(0.2):
		return rof(pick(POOLS), depth)
	return rof(pick(SCALARS), depth)

func _init():
	buf.resize(8)
	var seed_text := OS.get_environment("ORACLE_SEED")
	var count_text := OS.get_environment("ORACLE_COUNT")
	rng.seed = seed_text.to_int() if seed_text != "" else 1
	var count := count_text.to_int() if count_text != "" else 100
	for i in range(count):
		has_np = false
		var v = rvalue(0)
		var line := "{\"i\": %d, \"np\": %s, \"hex\": \"%s\", \"text\": \"%s\"}" % [
			i, "true" if has_np else "false", var_to_bytes(v).hex_encode(),
			var_to_str(v).to_utf8_buffer().hex_encode()]
		print(line)
	quit()
