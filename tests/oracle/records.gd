
# Random records, for tests/engine_structs.rs: Dictionaries shaped like the test's
# derived `Record` struct (its field names as keys, in field order, with values of
# the fields' types), and ways they come otherwise: two keys swapped, a key missing,
# a key more, a value of another type, an int out of a field's range, the nested
# struct's keys otherwise, or no record at all.
#
# Not a script on its own: the test appends it to random3.gd or random4.gd (all but
# their _init, whose value makers it uses) after a prelude that names what the two
# engines call otherwise:
#   const T_QUAT := TYPE_QUAT                   (TYPE_QUATERNION)
#   const T_STRINGS := TYPE_STRING_ARRAY        (TYPE_PACKED_STRING_ARRAY)
#   const T_BYTES := TYPE_RAW_ARRAY             (TYPE_PACKED_BYTE_ARRAY)
#   func encode(v): return var2bytes(v)          (var_to_bytes)
#   func setup(): pass                          (what random4.gd's _init sets up)
# From ORACLE_SEED, ORACLE_COUNT records; one JSON line each goes to stdout:
#   {"i": 0, "kind": 0, "hex": "12000000..."}

const FIELDS := ["name", "id", "small", "ratio", "alive", "pos", "rot", "tags", "data",
	"extra", "inner", "maybe", "list", "a_rather_long_field_name", "score"]

# What goes into a field of the struct.
func field(f: String):
	match f:
		"name", "a_rather_long_field_name":
			return rstring()
		"id":
			return rint()
		"small":
			return rint32()
		"ratio":
			return rfloat()
		"alive":
			return chance(0.5)
		"pos":
			return rvec3()
		"rot":
			return rof(T_QUAT, 0)
		"tags":
			return rof(T_STRINGS, 0)
		"data":
			return rof(T_BYTES, 0)
		"extra":
			return rextra()
		"inner":
			return {"x": rexact32(), "label": rstring()}
		"maybe":
			return null if chance(0.5) else rint()
		"list":
			var a := []
			for _k in range(rng.randi_range(0, 4)):
				a.append(rint())
			return a
		_:
			return rng.randi_range(0, 65535)

# A float exact in f32 (what an f32 field writes again as the engine wrote it).
func rexact32() -> float:
	if chance(0.2):
		return pick([0.0, -0.0, INF, -INF, 0.5, -1.5, 16777216.0])
	return float(rng.randi_range(-1000000, 1000000)) / pick([1.0, 2.0, 8.0, 1024.0])

# A `Variant` field's value: the kinds whose bytes the crate writes as the engine does.
func rextra():
	match rng.randi_range(0, 6):
		0:
			return null
		1:
			return rint()
		2:
			return rfloat()
		3:
			return rstring()
		4:
			return rvec2()
		5:
			return [rint(), rstring()]
		_:
			var d := {}
			d[rstring()] = rint()
			return d

# The keys of `values` in the order of `keys`, as a Dictionary.
func in_order(keys: Array, values: Dictionary) -> Dictionary:
	var d := {}
	for k in keys:
		d[k] = values[k]
	return d

# kind 0: the record in field order; 1: two keys swapped; 2: a key missing; 3: a key
# more; 4: a value of any type; 5: an int out of its field's range; 6: the nested
# struct's keys swapped, one missing or its value of another type; 7: any value.
func record(kind: int):
	if kind == 7:
		return rvalue(3)
	var keys := FIELDS.duplicate()
	var values := {}
	for f in keys:
		values[f] = field(f)
	var at := rng.randi_range(0, keys.size() - 1)
	match kind:
		1:
			var other := rng.randi_range(0, keys.size() - 1)
			var k = keys[at]
			keys[at] = keys[other]
			keys[other] = k
		2:
			keys.erase(keys[at])
		3:
			var more = pick(["zzz", "Name", "name ", "nam", "x", "a_rather_long_field_nam", rstring()])
			if not values.has(more):
				keys.insert(at, more)
				values[more] = rvalue(3)
		4:
			values[keys[at]] = rvalue(3)
		5:
			if chance(0.5):
				values["small"] = rint()
			else:
				values["score"] = pick([-1, 65536, rint32(), rint()])
		6:
			var inner = values["inner"]
			match rng.randi_range(0, 2):
				0:
					values["inner"] = in_order(["label", "x"], inner)
				1:
					values["inner"] = {"x": inner["x"]}
				_:
					inner["x"] = rvalue(2)
	return in_order(keys, values)

func _init():
	setup()
	var seed_text := OS.get_environment("ORACLE_SEED")
	var count_text := OS.get_environment("ORACLE_COUNT")
	rng.seed = seed_text.to_int() if seed_text != "" else 1
	var count := count_text.to_int() if count_text != "" else 100
	for i in range(count):
		var kind := 0 if chance(0.4) else rng.randi_range(1, 7)
		print("{\"i\": %d, \"kind\": %d, \"hex\": \"%s\"}" % [i, kind, encode(record(kind)).hex_encode()])
	quit()
