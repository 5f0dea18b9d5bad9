# ConfigFile reader oracle for Godot 4: load()s and parse()s every file in $CFG_IN and
# dumps what it read; the load()ed ConfigFile is save()d again to $CFG_RESAVE/<file>
# (when set).
#
#   CFG_IN=inputs CFG_RESAVE=out godot4 --headless --no-header --path DIR -s cfgload4.gd
#
# Files are taken in sorted name order. For each file and each way of reading it
# ("via": "load" is ConfigFile.load(path), which reads bytes through a file stream;
# "parse" is ConfigFile.parse(text) on the file's bytes decoded as UTF-8, a string
# stream) one JSON line, keys sorted (the same layout as cfgload.gd's for Godot 3):
#   {"err":0,"file":"a.cfg","sections":["73"],"via":"load"}
# err is load()'s / parse()'s return value, sections the section names in order (UTF-8
# hex). Then one line per key, in order (whatever was read before an error included):
#   {"file":"a.cfg","hex":"02000000...","key":"6b","section":"73","text":"31","type":2,"via":"load"}
# section and key are UTF-8 hex; hex is var_to_bytes_with_objects(value); text is UTF-8
# hex of var_to_str(value).
extends SceneTree

func dump(file: String, via: String, err: int, c: ConfigFile) -> void:
	var secs := PackedStringArray()
	for s in c.get_sections():
		secs.append(s.to_utf8_buffer().hex_encode())
	print(JSON.stringify({"file": file, "via": via, "err": err, "sections": secs}))
	for s in c.get_sections():
		for k in c.get_section_keys(s):
			var v = c.get_value(s, k)
			print(JSON.stringify({"file": file, "via": via, "section": s.to_utf8_buffer().hex_encode(),
				"key": k.to_utf8_buffer().hex_encode(), "type": typeof(v),
				"hex": var_to_bytes_with_objects(v).hex_encode(), "text": var_to_str(v).to_utf8_buffer().hex_encode()}))

func _init():
	var in_dir := OS.get_environment("CFG_IN")
	var resave := OS.get_environment("CFG_RESAVE")
	if in_dir == "" or not DirAccess.dir_exists_absolute(in_dir):
		printerr("cfgload4.gd: set CFG_IN to a directory of .cfg files")
		quit(2)
		return
	var files := Array(DirAccess.get_files_at(in_dir))
	files.sort()
	for name in files:
		var path: String = in_dir.path_join(name)
		var c := ConfigFile.new()
		var err := c.load(path)
		dump(name, "load", err, c)
		if resave != "":
			c.save(resave.path_join(name))
		var text := FileAccess.get_file_as_bytes(path).get_string_from_utf8()
		var p := ConfigFile.new()
		dump(name, "parse", p.parse(text), p)
	quit()
