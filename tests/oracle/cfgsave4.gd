# ConfigFile writer oracle for Godot 4: builds ConfigFile objects through the API and
# save()s each one to $CFG_OUT/<name>.cfg.
#
#   CFG_OUT=/some/dir godot4 --headless --no-header --path DIR -s cfgsave4.gd
#
# Prints one JSON line per case, {"err":0,"name":"basic","text_same":true} (err is save()'s
# return value; text_same says encode_to_text() gave exactly the saved file's text; when
# it did not, that text is written to $CFG_OUT/<name>.encode_to_text.txt).
# The cases are cfgsave.gd's (Godot 3), in Godot 4 spelling, plus Godot 4 types.
extends SceneTree

var out_dir := ""

func save(name: String, c: ConfigFile) -> void:
	var path := out_dir.path_join(name + ".cfg")
	var err := c.save(path)
	var same := FileAccess.get_file_as_bytes(path) == c.encode_to_text().to_utf8_buffer()
	if not same:
		var f := FileAccess.open(out_dir.path_join(name + ".encode_to_text.txt"), FileAccess.WRITE)
		f.store_string(c.encode_to_text())
		f.close()
	print(JSON.stringify({"name": name, "err": err, "text_same": same}))

func _init():
	out_dir = OS.get_environment("CFG_OUT")
	if out_dir == "":
		printerr("cfgsave4.gd: set CFG_OUT to a directory")
		quit(2)
		return
	var c: ConfigFile

	# Two sections, a few keys: the basic layout.
	c = ConfigFile.new()
	c.set_value("section", "key", "value")
	c.set_value("section", "number", 1)
	c.set_value("other", "flag", true)
	save("basic", c)

	# Nothing set: what does an empty ConfigFile write?
	save("empty", ConfigFile.new())

	# One key only.
	c = ConfigFile.new()
	c.set_value("s", "k", 1)
	save("single", c)

	# Values of every type.
	c = ConfigFile.new()
	c.set_value("scalars", "true", true)
	c.set_value("scalars", "false", false)
	c.set_value("scalars", "int", 42)
	c.set_value("scalars", "int_neg", -7)
	c.set_value("scalars", "int_big", 9223372036854775807)
	c.set_value("scalars", "int_min", -9223372036854775807 - 1)
	c.set_value("scalars", "float", 1.5)
	c.set_value("scalars", "float_whole", 2.0)
	c.set_value("scalars", "float_tenth", 0.1)
	c.set_value("scalars", "float_third", 1.0 / 3.0)
	c.set_value("scalars", "float_big", 1e20)
	c.set_value("scalars", "float_small", 1e-5)
	var z := 0.0
	z = -z
	c.set_value("scalars", "float_neg_zero", z)
	c.set_value("scalars", "float_inf", INF)
	c.set_value("scalars", "float_neg_inf", -INF)
	c.set_value("scalars", "float_nan", NAN)
	c.set_value("strings", "empty", "")
	c.set_value("strings", "plain", "hello world")
	c.set_value("strings", "newlines", "line1\nline2\n")
	c.set_value("strings", "crlf", "a\r\nb")
	c.set_value("strings", "quotes", "say \"hi\" 'there'")
	c.set_value("strings", "backslash", "C:\\path\\to")
	c.set_value("strings", "tab", "a\tb")
	c.set_value("strings", "controls", String.chr(1) + String.chr(7) + String.chr(8) + String.chr(11) + String.chr(12) + String.chr(27) + String.chr(127))
	c.set_value("strings", "unicode", "café 中文 😀")
	c.set_value("strings", "looks_like_section", "[not a section]")
	c.set_value("strings", "semicolon", "a ; not a comment")
	c.set_value("strings", "equals", "a=b")
	c.set_value("math", "vector2", Vector2(1, 2.5))
	c.set_value("math", "rect2", Rect2(0, 0, 10, 20))
	c.set_value("math", "vector3", Vector3(1, 2, 3))
	c.set_value("math", "transform2d", Transform2D(Vector2(1, 0), Vector2(0, 1), Vector2(5, 6)))
	c.set_value("math", "plane", Plane(0, 1, 0, 2))
	c.set_value("math", "quat", Quaternion(0, 0, 0, 1))
	c.set_value("math", "aabb", AABB(Vector3(1, 2, 3), Vector3(4, 5, 6)))
	c.set_value("math", "basis", Basis())
	c.set_value("math", "transform", Transform3D(Basis(), Vector3(1, 2, 3)))
	c.set_value("misc", "color", Color(1, 0.5, 0, 1))
	c.set_value("misc", "color_tenths", Color(0.1, 0.2, 0.3, 0.4))
	c.set_value("misc", "nodepath", NodePath("Main/Player:position"))
	c.set_value("misc", "rid", RID())
	c.set_value("misc", "object", RefCounted.new())
	c.set_value("misc", "resource_file", load("res://r.tres"))
	c.set_value("containers", "array_empty", [])
	c.set_value("containers", "array", [1, "two", 3.5, null, [4]])
	c.set_value("containers", "dict_empty", {})
	c.set_value("containers", "dict", {"b": 2, "a": 1, "nested": {"x": [1, {"y": "z"}]}})
	c.set_value("containers", "dict_keys", {1: "int", "s": "str", Vector2(1, 2): "vec", null: "nil"})
	c.set_value("containers", "dict_strings", {"multi": "a\nb", "quote": "\""})
	c.set_value("pools", "bytes", PackedByteArray([0, 1, 255]))
	c.set_value("pools", "ints", PackedInt32Array([1, -2, 3]))
	c.set_value("pools", "reals", PackedFloat32Array([0.5, 1, -2.25]))
	c.set_value("pools", "strings", PackedStringArray(["a", "b c", "d\"e", "f\ng"]))
	c.set_value("pools", "vector2s", PackedVector2Array([Vector2(1, 2), Vector2(3, 4)]))
	c.set_value("pools", "vector3s", PackedVector3Array([Vector3(1, 2, 3)]))
	c.set_value("pools", "colors", PackedColorArray([Color(1, 0, 0, 1)]))
	c.set_value("pools", "empty_bytes", PackedByteArray())
	c.set_value("godot4", "vector2i", Vector2i(1, -2))
	c.set_value("godot4", "rect2i", Rect2i(1, 2, 3, 4))
	c.set_value("godot4", "vector3i", Vector3i(1, 2, 3))
	c.set_value("godot4", "vector4", Vector4(1, 2, 3, 4))
	c.set_value("godot4", "vector4i", Vector4i(1, 2, 3, 4))
	c.set_value("godot4", "projection", Projection.IDENTITY)
	c.set_value("godot4", "string_name", &"name")
	c.set_value("godot4", "signal", Signal())
	c.set_value("godot4", "callable", Callable())
	c.set_value("godot4", "int64s", PackedInt64Array([1, 9223372036854775807]))
	c.set_value("godot4", "float64s", PackedFloat64Array([0.1, 1e300]))
	c.set_value("godot4", "vector4s", PackedVector4Array([Vector4(1, 2, 3, 4)]))
	var ta: Array[int] = [1, 2]
	c.set_value("godot4", "typed_array", ta)
	var td: Dictionary[String, int] = {"b": 2, "a": 1}
	c.set_value("godot4", "typed_dict", td)
	c.set_value("godot4", "dict_sn_key", {&"sn": 1, "s": 2})
	save("types", c)

	# Key spellings: project.godot-style paths, dots, spaces, unicode, specials.
	c = ConfigFile.new()
	for k in ["application/config/name", "config/icon", "a.b.c", "with space", "  padded  ",
			"tab\tkey", "ünïcödé", "日本語", "x=y", "[bracket]", "a]b", ";semi", "#hash",
			"\"quoted\"", "back\\slash", "colon:key", "comma,key", "plus+minus-", "under_score",
			"UPPER", "123", "1.5", "true", "null", "*star", "@at", "$dollar", "%percent", "key.Android",
			"a/b.c:d", "emoji😀", "new\nline", ""]:
		c.set_value("keys", k, k)
	save("keys", c)

	# Section spellings.
	c = ConfigFile.new()
	for s in ["application", "a.b", "a/b", "with space", "ünïcödé", "a]b", "a[b", "preset.0.options",
			"tab\tsec", ";semi", "#hash", "\"q\"", "new\nline", ""]:
		c.set_value(s, "k", s)
	save("sections", c)

	# The "" section (keys set before any section, as load() files them).
	c = ConfigFile.new()
	c.set_value("a", "k", 1)
	c.set_value("", "top", 2)
	c.set_value("b", "k", 3)
	save("empty_section_name", c)

	# Erasing: set_value(null) erases the key and, when it was the last, the section.
	c = ConfigFile.new()
	c.set_value("keep", "a", 1)
	c.set_value("keep", "gone", 2)
	c.set_value("keep", "gone", null)
	c.set_value("vanish", "only", 1)
	c.set_value("vanish", "only", null)
	c.set_value("keep", "never", null)
	c.set_value("never", "never", null)
	c.set_value("erased", "x", 1)
	c.erase_section("erased")
	c.set_value("keep", "b", 3)
	c.set_value("partly", "x", 1)
	c.set_value("partly", "y", 2)
	c.erase_section_key("partly", "x")
	c.set_value("emptied", "x", 1)
	c.erase_section_key("emptied", "x")
	save("erase", c)

	# Order: re-setting an existing key keeps its place; re-setting a key of an earlier
	# section does not move the section; a key erased and set again goes to the end.
	c = ConfigFile.new()
	c.set_value("first", "a", 1)
	c.set_value("first", "b", 2)
	c.set_value("second", "x", 1)
	c.set_value("first", "c", 3)
	c.set_value("first", "a", 10)
	c.set_value("third", "z", 1)
	c.set_value("second", "y", 2)
	c.set_value("first", "b", null)
	c.set_value("first", "b", 20)
	c.set_value("second", "x", "changed type")
	save("order", c)

	# Section erased and set again goes to the end.
	c = ConfigFile.new()
	c.set_value("a", "k", 1)
	c.set_value("b", "k", 2)
	c.erase_section("a")
	c.set_value("a", "k", 3)
	save("order_resection", c)

	# A project.godot-like file built through the API.
	c = ConfigFile.new()
	c.set_value("", "config_version", 5)
	c.set_value("application", "config/name", "My Game")
	c.set_value("application", "run/main_scene", "res://Main.tscn")
	c.set_value("application", "config/icon", "res://icon.png")
	c.set_value("display", "window/size/width", 1280)
	c.set_value("display", "window/size/height", 720)
	c.set_value("input", "jump", {"deadzone": 0.5, "events": []})
	c.set_value("rendering", "environment/default_clear_color", Color(0.3, 0.3, 0.3, 1))
	c.set_value("editor_plugins", "enabled", PackedStringArray(["res://addons/a/plugin.cfg"]))
	save("project_like", c)
	quit()
