# Text printer for Godot 4: var_to_str of a broad set of values (print.gd's, in Godot 4
# spelling, plus the types Godot 3 lacks).
#
#   godot4 --headless --no-header --path DIR -s print4.gd   (DIR holds res://r.tres)
#
# One JSON line per value on stdout, keys sorted (JSON.stringify):
#   {"hex":"0200000001000000","name":"int_1","text":"31","type":2}
#   name  unique case name
#   type  typeof(value)
#   hex   var_to_bytes_with_objects(value) (full objects)
#   text  UTF-8 hex of var_to_str(value)
# These texts are what the engine itself writes; scripts/gen-text-fixtures.py feeds every
# one of them back to all three engines' str2var (the round-trip part of the corpus).
extends SceneTree

var cases := []

func c(name: String, v) -> void:
	cases.append([name, v])

func _init():
	build()
	for nv in cases:
		var v = nv[1]
		var res := {"name": nv[0], "type": typeof(v), "hex": var_to_bytes_with_objects(v).hex_encode(), "text": var_to_str(v).to_utf8_buffer().hex_encode()}
		print(JSON.stringify(res))
	quit()

func build():
	c("null", null)
	c("true", true)
	c("false", false)
	for n in [0, 1, -1, 42, 2147483647, -2147483648, 2147483648, -2147483649, 9223372036854775807, -9223372036854775807 - 1, 1 << 40]:
		c("int_" + str(n), n)
	var z := 0.0
	z = -z
	c("float_minus_0", z)
	var floats := {
		"0": 0.0, "0_5": 0.5, "1": 1.0, "1_5": 1.5, "m3_25": -3.25, "0_1": 0.1, "0_2": 0.2,
		"third": 1.0 / 3.0, "2_3": 2.0 / 3.0, "100": 100.0, "1e6": 1000000.0, "999999_5": 999999.5,
		"123456789": 123456789.0, "16777217": 16777217.0, "1e15": 1e15, "1e16": 1e16, "1e17": 1e17,
		"1e20": 1e20, "1e21": 1e21, "1e100": 1e100, "1e300": 1e300, "f64_max": 1.7976931348623157e308,
		"f32_max": 3.4028234663852886e38, "1e_5": 1e-5, "1e_4": 0.0001, "1e_7": 1e-7, "1e_45": 1e-45,
		"1e_300": 1e-300, "5e_324": 5e-324, "pi": PI, "tau": TAU, "e": exp(1.0), "0_3_sum": 0.1 + 0.2,
		"m0_001": -0.001, "12345_678": 12345.678, "inf": INF, "minus_inf": -INF, "nan": NAN}
	for k in floats:
		c("float_" + k, floats[k])
	# Strings: every escape the writer knows, controls, non-ASCII, newlines.
	c("str_empty", "")
	c("str_abc", "abc")
	c("str_quote", "a\"b")
	c("str_apos", "a'b")
	c("str_backslash", "a\\b")
	c("str_newline", "line1\nline2")
	c("str_crlf", "a\r\nb")
	c("str_tab", "a\tb")
	var controls := ""
	for k in range(1, 32):
		controls += String.chr(k)
		c("str_ctrl_%02x" % k, "<" + String.chr(k) + ">")
	controls += String.chr(127)
	c("str_ctrl_7f", "<" + String.chr(127) + ">")
	c("str_all_controls", controls)
	var printable := ""
	for k in range(32, 127):
		printable += String.chr(k)
	c("str_printable_ascii", printable)
	c("str_latin1", "café ñ ü ß ÿ")
	c("str_cjk", "中文字")
	c("str_emoji", "😀 🎉")
	c("str_bom", String.chr(0xFEFF) + "x")
	c("str_nbsp", "a" + String.chr(0xA0) + "b")
	c("str_ls_ps", "a" + String.chr(0x2028) + "b" + String.chr(0x2029) + "c")
	c("str_fffd", String.chr(0xFFFD))
	c("str_ffff", String.chr(0xFFFF))
	c("str_max", String.chr(0x10FFFF))
	c("str_c1", String.chr(0x85) + String.chr(0x9F))
	c("str_looks_like_code", "Vector2(1, 2)")
	c("str_semicolon", "a ; b")
	c("str_hash", "#fff")
	# Math types.
	c("vector2", Vector2(1, 2))
	c("vector2_frac", Vector2(0.1, -0.5))
	c("vector2_big", Vector2(1e20, -1e-5))
	c("vector2_inf_nan", Vector2(INF, NAN))
	c("vector2_neg_inf", Vector2(-INF, 0))
	c("vector2_zero", Vector2())
	c("rect2", Rect2(1, 2, 3, 4))
	c("rect2_frac", Rect2(0.5, -0.25, 1e3, 0.1))
	c("vector3", Vector3(1, 2, 3))
	c("vector3_frac", Vector3(0.1, 0.2, 0.3))
	c("transform2d_identity", Transform2D.IDENTITY)
	c("transform2d", Transform2D(Vector2(1, 2), Vector2(3, 4), Vector2(5, 6)))
	c("transform2d_rot", Transform2D(0.5, Vector2(10, -10)))
	c("plane", Plane(0, 1, 0, 5))
	c("plane_frac", Plane(0.6, 0.8, 0, -1.5))
	c("quat_identity", Quaternion())
	c("quat", Quaternion(0.1, 0.2, 0.3, 0.9))
	c("aabb", AABB(Vector3(1, 2, 3), Vector3(4, 5, 6)))
	c("basis_identity", Basis())
	c("basis", Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)))
	c("basis_rot", Basis(Vector3(0, 1, 0), 0.5))
	c("transform_identity", Transform3D())
	c("transform", Transform3D(Basis(Vector3(1, 2, 3), Vector3(4, 5, 6), Vector3(7, 8, 9)), Vector3(10, 11, 12)))
	c("color", Color(1, 0, 0, 1))
	c("color_frac", Color(0.1, 0.2, 0.3, 0.4))
	c("color_html", Color("#80ff8000"))
	c("color_over", Color(2, -1, 0.5, 1))
	# Misc.
	c("nodepath", NodePath("a/b:c"))
	c("nodepath_empty", NodePath(""))
	c("nodepath_abs", NodePath("/root/Main"))
	c("nodepath_props", NodePath(":x:y"))
	c("nodepath_quote", NodePath("a\"b"))
	c("nodepath_unicode", NodePath("é/中"))
	c("rid_empty", RID())
	c("object_reference", RefCounted.new())
	c("object_resource", Resource.new())
	var named := Resource.new()
	named.resource_name = "n"
	c("object_resource_named", named)
	c("resource_file", load("res://r.tres"))
	c("object_plain", ClassDB.instantiate("Object"))  # not RefCounted: leaked on purpose
	# Containers.
	c("dict_empty", {})
	c("dict_one", {"a": 1})
	c("dict_order", {"b": 1, "a": 2, "c": 3})
	c("dict_int_keys", {2: "b", 1: "a", -1: "m"})
	c("dict_mixed_keys", {"s": 1, 2: 2, 1.5: 3, null: 4, true: 5, Vector2(1, 2): 6, [1]: 7, {"k": 1}: 8})
	c("dict_nested", {"a": {"b": {"c": [1, {"d": null}]}}})
	c("dict_values", {"v2": Vector2(1, 2), "col": Color(1, 0, 0, 1), "np": NodePath("a"), "arr": PackedInt32Array([1])})
	c("array_empty", [])
	c("array", [1, "x", [2]])
	c("array_mixed", [null, true, 1, 1.5, "s", Vector2(1, 2), {}, []])
	c("array_nested_dicts", [{"a": 1}, {}])
	var deep := []
	for k in range(200):
		deep = [deep]
	c("array_deep_201", deep)
	c("pool_byte_empty", PackedByteArray())
	c("pool_byte", PackedByteArray([0, 1, 127, 128, 255]))
	c("pool_int_empty", PackedInt32Array())
	c("pool_int", PackedInt32Array([-1, 0, 2147483647, -2147483648]))
	c("pool_real_empty", PackedFloat32Array())
	c("pool_real", PackedFloat32Array([0.1, 1, -2.5, INF, -INF]))
	c("pool_string_empty", PackedStringArray())
	c("pool_string", PackedStringArray(["a", "", "\"", "\n", "é", "\\"]))
	c("pool_vector2_empty", PackedVector2Array())
	c("pool_vector2", PackedVector2Array([Vector2(1, 2), Vector2(0.1, -3)]))
	c("pool_vector3_empty", PackedVector3Array())
	c("pool_vector3", PackedVector3Array([Vector3(1, 2, 3), Vector3(0.1, -3, 1e10)]))
	c("pool_color_empty", PackedColorArray())
	c("pool_color", PackedColorArray([Color(1, 0, 0, 1), Color(0.1, 0.2, 0.3, 0.4)]))
	# Godot 4 only.
	c("pool_byte_b64_len", PackedByteArray([1, 2, 3, 4]))
	c("pool_int64_empty", PackedInt64Array())
	c("pool_int64", PackedInt64Array([-1, 2147483648, 9223372036854775807, -9223372036854775807 - 1]))
	c("pool_float64_empty", PackedFloat64Array())
	c("pool_float64", PackedFloat64Array([0.1, 1, -2.5, 1e300, 5e-324, INF, -INF]))
	c("pool_vector4_empty", PackedVector4Array())
	c("pool_vector4", PackedVector4Array([Vector4(1, 2, 3, 4), Vector4(0.1, -3, 1e10, 0)]))
	c("vector2i", Vector2i(1, -2))
	c("vector2i_extremes", Vector2i(2147483647, -2147483648))
	c("rect2i", Rect2i(1, 2, 3, 4))
	c("vector3i", Vector3i(1, 2, 3))
	c("vector4", Vector4(1, 2, 3, 4))
	c("vector4_frac", Vector4(0.1, -0.2, 1e10, INF))
	c("vector4i", Vector4i(1, -2, 3, -4))
	c("projection_identity", Projection.IDENTITY)
	c("projection", Projection(Vector4(1, 2, 3, 4), Vector4(5, 6, 7, 8), Vector4(9, 10, 11, 12), Vector4(13, 14, 15, 16)))
	c("string_name", &"abc")
	c("string_name_empty", &"")
	c("string_name_escapes", StringName("a\"b\nc\\d"))
	c("string_name_unicode", &"é😀")
	c("signal_empty", Signal())
	c("callable_empty", Callable())
	var rc := RefCounted.new()
	c("callable_bound", Callable(rc, &"get_class"))
	c("signal_bound", Signal(rc, &"changed"))
	c("dict_string_vs_stringname", {"a": 1, &"b": 2})
	c("dict_int_float_keys", {1: "i", 1.5: "f", 2.0: "g"})
	c("dict_sn_keys", {&"b": 1, &"a": 2})
	c("array_of_sn", [&"x", "x"])
	var ai: Array[int] = [1, 2]
	c("typed_array_int", ai)
	var ai0: Array[int] = []
	c("typed_array_int_empty", ai0)
	var af: Array[float] = [1.5]
	c("typed_array_float", af)
	var asn: Array[StringName] = [&"a"]
	c("typed_array_string_name", asn)
	var astr: Array[String] = ["a", "b"]
	c("typed_array_string", astr)
	var av: Array[Vector2] = [Vector2(1, 2)]
	c("typed_array_vector2", av)
	var aa: Array[Array] = [[1]]
	c("typed_array_array", aa)
	var an: Array[Node] = []
	c("typed_array_node", an)
	var ares: Array[Resource] = [load("res://r.tres")]
	c("typed_array_resource", ares)
	var arc: Array[RefCounted] = []
	c("typed_array_refcounted", arc)
	var ao: Array[Object] = [null]
	c("typed_array_object", ao)
	var d1: Dictionary[String, int] = {"b": 2, "a": 1}
	c("typed_dict_string_int", d1)
	var d0: Dictionary[String, int] = {}
	c("typed_dict_empty", d0)
	var d2: Dictionary[int, Variant] = {1: "x"}
	c("typed_dict_int_variant", d2)
	var d3: Dictionary[Variant, String] = {1: "x"}
	c("typed_dict_variant_string", d3)
	var d4: Dictionary[StringName, Vector3] = {&"up": Vector3(0, 1, 0)}
	c("typed_dict_sn_vector3", d4)
	var d5: Dictionary[Variant, Node] = {}
	c("typed_dict_variant_node", d5)
	var d6: Dictionary[Resource, int] = {}
	c("typed_dict_resource_int", d6)
	c("nested_typed", [ai, {"d": d1}])
	c("float_f32_exact_0_1", float(PackedFloat32Array([0.1])[0]))
	c("float_1e_5_f64", 0.00001)
	c("float_123456789_123", 123456789.123)
	c("float_large_int", 9007199254740993.0)
	c("float_1e22", 1e22)
	c("float_1e23", 1e23)
