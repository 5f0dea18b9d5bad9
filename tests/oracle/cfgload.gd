# ConfigFile reader oracle for Godot 3 (3.2.3 and 3.6): load()s and parse()s every file in
# $CFG_IN and dumps what it read; the load()ed ConfigFile is save()d again to
# $CFG_RESAVE/<file> (when set).
#
#   CFG_IN=inputs CFG_RESAVE=out godot3.6 --path DIR -s cfgload.gd   (DIR holds res://r.tres)
#
# Files are taken in sorted name order. For each file and each way of reading it
# ("via": "load" is ConfigFile.load(path), which reads bytes through a file stream;
# "parse" is ConfigFile.parse(text) on the file's bytes decoded as UTF-8, a string
# stream) one JSON line, keys sorted:
#   {"err":0,"file":"a.cfg","sections":["73"],"via":"load"}
# err is load()'s / parse()'s return value, sections the section names in order (UTF-8
# hex). Then one line per key, in order (whatever was read before an error included):
#   {"file":"a.cfg","hex":"02000000...","key":"6b","section":"73","text":"31","type":2,"via":"load"}
# section and key are UTF-8 hex; hex is var2bytes(value, true); text is UTF-8 hex of
# var2str(value). (Hex because the engines' JSON escapes of control characters are not
# valid JSON, and keys can hold anything.)
extends SceneTree

func hexs(b: PoolByteArray) -> String:
	var parts := PoolStringArray()
	for x in b:
		parts.append("%02x" % x)
	return parts.join("")

func dump(file: String, via: String, err: int, c: ConfigFile) -> void:
	var secs := PoolStringArray()
	for s in c.get_sections():
		secs.append(hexs(s.to_utf8()))
	print(to_json({"file": file, "via": via, "err": err, "sections": secs}))
	for s in c.get_sections():
		for k in c.get_section_keys(s):
			var v = c.get_value(s, k)
			print(to_json({"file": file, "via": via, "section": hexs(s.to_utf8()), "key": hexs(k.to_utf8()),
				"type": typeof(v), "hex": hexs(var2bytes(v, true)), "text": hexs(var2str(v).to_utf8())}))

func _init():
	var in_dir := OS.get_environment("CFG_IN")
	var resave := OS.get_environment("CFG_RESAVE")
	var d := Directory.new()
	if in_dir == "" or d.open(in_dir) != OK:
		printerr("cfgload.gd: set CFG_IN to a directory of .cfg files")
		quit(2)
		return
	var files := []
	d.list_dir_begin(true, true)
	var n := d.get_next()
	while n != "":
		if not d.current_is_dir():
			files.append(n)
		n = d.get_next()
	d.list_dir_end()
	files.sort()
	for name in files:
		var path: String = in_dir.plus_file(name)
		var c := ConfigFile.new()
		var err := c.load(path)
		dump(name, "load", err, c)
		if resave != "":
			c.save(resave.plus_file(name))
		var f := File.new()
		f.open(path, File.READ)
		var text := f.get_buffer(f.get_len()).get_string_from_utf8()
		f.close()
		var p := ConfigFile.new()
		dump(name, "parse", p.parse(text), p)
	quit()
