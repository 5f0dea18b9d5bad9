# Reverse oracle for Godot 3 (3.2.3 and 3.6): the engine decodes bytes we give it.
#
#   ORACLE_IN=in.txt godot3.6 --path tests/oracle -s read.gd
#
# ORACLE_IN names a text file with one lowercase hex string a line (empty lines are
# skipped; a relative path is taken from $PWD). For each value line, in order, one JSON
# line goes to stdout (and to the file $ORACLE_OUT, if set):
#   {"i": 0, "line": 1, "ok": true, "type": 2, "text": "31", "hex": "0200000001000000"}
# i counts value lines from 0, line is the 1-based line number, type is typeof(value),
# parsed is var2bytes(str2var(var2str(value))): the engine reading its own text;
# text is the UTF-8 hex of var2str(value), hex is var2bytes(value), the value written back by the engine.
# (Text goes as hex: the engines' JSON escapes of control characters are not JSON.)
# ORACLE_OBJECTS=1 decodes and re-encodes with full objects (bytes2var(b, true)).
# Only lines starting with "{" are results; the banner and error messages are not.
#
# Failure: Godot 3's bytes2var has no error return. On bad input it prints an ERROR
# and a SCRIPT ERROR and aborts the *calling* GDScript function, which then returns
# null. So decode() returns [value] on success and null on failure, and a real null
# value ([null]) is told apart from a refusal exactly. A refused line has
# "ok": false, "type": -1, "text": "" and "hex": "".
extends SceneTree

var objects := false

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

# [value], or null when bytes2var refused the bytes (see above).
func decode(b: PoolByteArray):
	var v = bytes2var(b, objects)
	return [v]

func _init():
	objects = OS.get_environment("ORACLE_OBJECTS") == "1"
	var path := OS.get_environment("ORACLE_IN")
	if path != "" and not path.is_abs_path() and OS.get_environment("PWD") != "":
		path = OS.get_environment("PWD").plus_file(path)
	var f := File.new()
	if path == "" or f.open(path, File.READ) != OK:
		printerr("read.gd: set ORACLE_IN to a readable file of hex lines (got '", path, "')")
		quit(2)
		return
	var out := File.new()
	var out_path := OS.get_environment("ORACLE_OUT")
	if out_path != "" and out.open(out_path, File.WRITE) != OK:
		printerr("read.gd: cannot write ORACLE_OUT '", out_path, "'")
		quit(2)
		return
	var i := 0
	var line_no := 0
	while not f.eof_reached():
		var line := f.get_line().strip_edges().to_lower()
		line_no += 1
		if line == "":
			continue
		var r = decode(unhex(line))
		var res := {"i": i, "line": line_no, "ok": false, "type": -1, "text": "", "hex": ""}
		if typeof(r) == TYPE_ARRAY:
			res["ok"] = true
			res["type"] = typeof(r[0])
			res["text"] = hexs(var2str(r[0]).to_utf8())
			res["hex"] = hexs(var2bytes(r[0], objects))
			# The engine reading its own text back (str2var).
			res["parsed"] = hexs(var2bytes(str2var(var2str(r[0])), objects))
		var json := to_json(res)
		print(json)
		if out.is_open():
			out.store_line(json)
		i += 1
	f.close()
	if out.is_open():
		out.close()
	quit()
