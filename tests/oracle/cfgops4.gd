# ConfigFile operations oracle for Godot 4: cfgops.gd's input and output, with save()
# through a file as there (not encode_to_text(), which 4.6 writes without save()'s
# escaping of "]" in section names: cfgsave4.gd) and parse() of its text.
#
#   ORACLE_IN=ops.txt ORACLE_TMP=/some/dir godot4 --headless --no-header --path DIR -s cfgops4.gd
extends SceneTree

func name(s: String) -> String:
	return s.hex_decode().get_string_from_utf8()

func saved(c: ConfigFile, path: String) -> PackedByteArray:
	c.save(path)
	return FileAccess.get_file_as_bytes(path)

func _init():
	var tmp := OS.get_environment("ORACLE_TMP")
	var f := FileAccess.open(OS.get_environment("ORACLE_IN"), FileAccess.READ)
	if f == null or tmp == "":
		printerr("cfgops4.gd: set ORACLE_IN to a file of calls and ORACLE_TMP to a directory")
		quit(2)
		return
	var c := ConfigFile.new()
	var i := 0
	while not f.eof_reached():
		var op := f.get_line().split(" ", true)
		match op[0]:
			"S":
				c.set_value(name(op[1]), name(op[2]), bytes_to_var(op[3].hex_decode()))
			"K":
				c.erase_section_key(name(op[1]), name(op[2]))
			"X":
				c.erase_section(name(op[1]))
			"E":
				var text := saved(c, tmp.path_join("a.cfg"))
				var again := ConfigFile.new()
				var err := again.parse(text.get_string_from_utf8())
				var back := saved(again, tmp.path_join("b.cfg"))
				print(JSON.stringify({"i": i, "text": text.hex_encode(), "again_err": err,
					"again": back.hex_encode()}))
				c = ConfigFile.new()
				i += 1
	quit(0)
