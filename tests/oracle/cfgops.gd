# ConfigFile operations oracle for Godot 3 (3.6): applies lists of set_value /
# erase_section_key / erase_section calls to fresh ConfigFiles and prints what save()
# writes, and what parse() of that text and save() again make of it (parse(): load()
# takes the bytes of an unquoted key as Latin-1, as no well-formed file has them).
#
#   ORACLE_IN=ops.txt ORACLE_TMP=/some/dir godot3.6 --path DIR -s cfgops.gd
#
# ORACLE_IN holds one call a line, names as UTF-8 hex (an empty field is ""), values
# as var2bytes hex:
#   S <section> <key> <value>   set_value (a null value erases, as the engine does)
#   K <section> <key>           erase_section_key
#   X <section>                 erase_section
#   E                           the end of a case: its results go out, a new file starts
# One JSON line a case: {"i": 0, "text": "<hex>", "again_err": 0, "again": "<hex>"}:
# text is the UTF-8 hex of the saved file, again_err is parse()'s return value on its
# text, again the hex of what a save() of the parsed file writes.
extends SceneTree

func unhex(s: String) -> PoolByteArray:
	var out := PoolByteArray()
	out.resize(s.length() / 2)
	for k in range(out.size()):
		out[k] = ("0x" + s.substr(2 * k, 2)).hex_to_int()
	return out

func hexs(b: PoolByteArray) -> String:
	var parts := PoolStringArray()
	for x in b:
		parts.append("%02x" % x)
	return parts.join("")

func name(s: String) -> String:
	return unhex(s).get_string_from_utf8()

func saved(c: ConfigFile, path: String) -> PoolByteArray:
	c.save(path)
	var f := File.new()
	f.open(path, File.READ)
	var b := f.get_buffer(f.get_len())
	f.close()
	return b

func _init():
	var tmp := OS.get_environment("ORACLE_TMP")
	var f := File.new()
	if tmp == "" or f.open(OS.get_environment("ORACLE_IN"), File.READ) != OK:
		printerr("cfgops.gd: set ORACLE_IN to a file of calls and ORACLE_TMP to a directory")
		quit(2)
		return
	var c := ConfigFile.new()
	var i := 0
	while not f.eof_reached():
		var op := f.get_line().split(" ", true)
		match op[0]:
			"S":
				c.set_value(name(op[1]), name(op[2]), bytes2var(unhex(op[3])))
			"K":
				c.erase_section_key(name(op[1]), name(op[2]))
			"X":
				c.erase_section(name(op[1]))
			"E":
				var text := saved(c, tmp.plus_file("a.cfg"))
				var again := ConfigFile.new()
				var err := again.parse(text.get_string_from_utf8())
				var back := saved(again, tmp.plus_file("b.cfg"))
				print(to_json({"i": i, "text": hexs(text), "again_err": err, "again": hexs(back)}))
				c = ConfigFile.new()
				i += 1
	quit(0)
