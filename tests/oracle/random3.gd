# Random values made by Godot 3 (3.2.3 and 3.6), for tests/random_from_engines.rs.
#
#   ORACLE_SEED=42 ORACLE_COUNT=2000 godot3.6 --path tests/oracle -s random3.gd
#
# From the seed (an int below 2^31), the engine's RandomNumberGenerator makes
# ORACLE_COUNT values of every Variant type Godot 3 can make without objects (RID is
# the empty RID()), nested up to depth 6, with edge numbers (0, -0.0, INF, -INF, NaN
# with any payload, int limits, subnormals, floats exact in f32 and not) and strings
# with control characters, quotes, backslashes, `?`, non-ASCII and astral characters.
# One JSON line a value goes to stdout:
#   {"i": 0, "np": false, "hex": "0200000001000000", "text": "31"}
# hex is var2bytes(value), text the UTF-8 hex of var2str(value) (hex because the
# engines' JSON escapes of control characters are not JSON), np says whether the value
# holds a NodePath (whose padding Godot 3 leaves uninitialised).
#
# Godot 3 sorts dictionary keys to print them, and its introsort (used above 16
# keys) can crash on keys of mixed types or containers. So keys are never containers,
# and dictionaries with more than 16 keys have String or int keys only.
# The same seed gives the same values in 3.2.3 and 3.6.
extends SceneTree

const MAX_DEPTH := 6

var rng := RandomNumberGenerator.new()
var sp := StreamPeerBuffer.new()
var has_np := false

func pick(a: Array):
	return a[rng.randi_range(0, a.size() - 1)]

func chance(p: float) -> bool:
	return rng.randf() < p

# A double from its bits.
func f64_bits(hi: int, lo: int) -> float:
	sp.clear()
	sp.put_u32(lo)
	sp.put_u32(hi)
	sp.seek(0)
	return sp.get_double()

# The f32 with these bits, as a double.
func f32_bits(bits: int) -> float:
	sp.clear()
	sp.put_u32(bits)
	sp.seek(0)
	return sp.get_float()

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
	while s.length() > 0 and s.ord_at(0) == 0xfeff:
		s = s.substr(1, s.length() - 1)
	return s

func rname() -> String:
	if chance(0.1):
		return pick([".", "..", "root", "@Node@2", "%Unique", "a b", "Node2D"])
	var s := ""
	for _k in range(rng.randi_range(1, 6)):
		var c := rchar()
		if c.find("/") < 0 and c.find(":") < 0:
			s += c
	if s == "" or s.ord_at(0) == 0xfeff:
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

# Types by id (see the TYPE_* constants).
const SCALARS := [TYPE_NIL, TYPE_BOOL, TYPE_INT, TYPE_REAL, TYPE_STRING, TYPE_VECTOR2, TYPE_RECT2, TYPE_VECTOR3, TYPE_TRANSFORM2D, TYPE_PLANE, TYPE_QUAT, TYPE_AABB, TYPE_BASIS, TYPE_TRANSFORM, TYPE_COLOR, TYPE_NODE_PATH, TYPE_RID]
const POOLS := [TYPE_RAW_ARRAY, TYPE_INT_ARRAY, TYPE_REAL_ARRAY, TYPE_STRING_ARRAY, TYPE_VECTOR2_ARRAY, TYPE_VECTOR3_ARRAY, TYPE_COLOR_ARRAY]

func rof(t: int, depth: int):
	match t:
		TYPE_NIL:
			return null
		TYPE_BOOL:
			return chance(0.5)
		TYPE_INT:
			return rint()
		TYPE_REAL:
			return rfloat()
		TYPE_STRING:
			return rstring()
		TYPE_VECTOR2:
			return rvec2()
		TYPE_RECT2:
			return Rect2(rreal(), rreal(), rreal(), rreal())
		TYPE_VECTOR3:
			return rvec3()
		TYPE_TRANSFORM2D:
			return Transform2D(rvec2(), rvec2(), rvec2())
		TYPE_PLANE:
			return Plane(rreal(), rreal(), rreal(), rreal())
		TYPE_QUAT:
			return Quat(rreal(), rreal(), rreal(), rreal())
		TYPE_AABB:
			return AABB(rvec3(), rvec3())
		TYPE_BASIS:
			return rbasis()
		TYPE_TRANSFORM:
			return Transform(rbasis(), rvec3())
		TYPE_COLOR:
			return rcolor()
		TYPE_NODE_PATH:
			return rnodepath()
		TYPE_RID:
			return RID()
		TYPE_RAW_ARRAY:
			var a := PoolByteArray()
			for _k in range(pool_len()):
				a.append(rng.randi_range(0, 255))
			return a
		TYPE_INT_ARRAY:
			var a := PoolIntArray()
			for _k in range(pool_len()):
				a.append(rint32())
			return a
		TYPE_REAL_ARRAY:
			var a := PoolRealArray()
			for _k in range(pool_len()):
				a.append(rreal())
			return a
		TYPE_STRING_ARRAY:
			var a := PoolStringArray()
			for _k in range(pool_len() / 2):
				a.append(rstring())
			return a
		TYPE_VECTOR2_ARRAY:
			var a := PoolVector2Array()
			for _k in range(pool_len()):
				a.append(rvec2())
			return a
		TYPE_VECTOR3_ARRAY:
			var a := PoolVector3Array()
			for _k in range(pool_len()):
				a.append(rvec3())
			return a
		TYPE_COLOR_ARRAY:
			var a := PoolColorArray()
			for _k in range(pool_len()):
				a.append(rcolor())
			return a
		TYPE_ARRAY:
			var a := []
			for _k in range(container_len(depth)):
				a.append(rvalue(depth + 1))
			return a
		TYPE_DICTIONARY:
			return rdict(depth)
	return null

func container_len(depth: int) -> int:
	var most: int = [10, 6, 4, 3, 2, 2, 1][depth]
	if chance(0.15):
		return 0
	return rng.randi_range(1, most)

# A dictionary key: never a container (see the top).
func rkey():
	if chance(0.3):
		return rstring()
	if chance(0.2):
		return rint()
	return rof(pick(SCALARS), MAX_DEPTH)

func rdict(depth: int) -> Dictionary:
	var d := {}
	if depth < 2 and chance(0.08):
		# Many keys: String and int only (see the top).
		for _k in range(rng.randi_range(17, 40)):
			var key = rstring() if chance(0.5) else rint()
			d[key] = rvalue(depth + 1)
		return d
	for _k in range(container_len(depth)):
		d[rkey()] = rvalue(depth + 1)
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
	var seed_text := OS.get_environment("ORACLE_SEED")
	var count_text := OS.get_environment("ORACLE_COUNT")
	rng.seed = int(seed_text) if seed_text != "" else 1
	var count := int(count_text) if count_text != "" else 100
	for i in range(count):
		has_np = false
		var v = rvalue(0)
		var line := "{\"i\": %d, \"np\": %s, \"hex\": \"%s\", \"text\": \"%s\"}" % [
			i, "true" if has_np else "false", var2bytes(v).hex_encode(),
			var2str(v).to_utf8().hex_encode()]
		print(line)
	quit()
