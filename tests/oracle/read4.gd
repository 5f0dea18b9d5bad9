# Reverse oracle for Godot 4: the engine decodes bytes we give it.
#
#   ORACLE_IN=in.txt godot4 --headless --no-header --path tests/oracle/g4 -s ../read4.gd
#
# ORACLE_IN names a text file with one lowercase hex string a line (empty lines are
# skipped; a relative path is taken from $PWD). For each value line, in order, one JSON
# line goes to stdout (and to the file $ORACLE_OUT, if set):
#   {"i": 0, "line": 1, "ok": true, "type": 2, "text": "31", "hex": "0200000001000000"}
# i counts value lines from 0, line is the 1-based line number, type is typeof(value),
# text is the UTF-8 hex of var_to_str(value), hex is var_to_bytes(value), the value written back,
# parsed is var_to_bytes(str_to_var(var_to_str(value))): the engine reading its own text.
# (Text goes as hex: the engines' JSON escapes of control characters are not JSON.)
# ORACLE_OBJECTS=1 uses bytes_to_var_with_objects / var_to_bytes_with_objects.
# Only lines starting with "{" are results.
#
# Failure: bytes_to_var prints an ERROR and returns null (the script goes on). Every
# input that really decodes to null has a NIL header (type byte 0): null objects (id 0,
# or the full form with an empty class name) come back as a null *Object* (typeof 24,
# text "null"). So a TYPE_NIL result is a refusal unless the input is at least 4 bytes
# with type byte 0.
# A refused line has "ok": false, "type": -1, "text": "" and "hex": "".
extends SceneTree

func _init():
	var objects := OS.get_environment("ORACLE_OBJECTS") == "1"
	var path := OS.get_environment("ORACLE_IN")
	if path != "" and not path.is_absolute_path() and OS.get_environment("PWD") != "":
		path = OS.get_environment("PWD").path_join(path)
	var f := FileAccess.open(path, FileAccess.READ) if path != "" else null
	if f == null:
		printerr("read4.gd: set ORACLE_IN to a readable file of hex lines (got '", path, "')")
		quit(2)
		return
	var out: FileAccess = null
	var out_path := OS.get_environment("ORACLE_OUT")
	if out_path != "":
		out = FileAccess.open(out_path, FileAccess.WRITE)
		if out == null:
			printerr("read4.gd: cannot write ORACLE_OUT '", out_path, "'")
			quit(2)
			return
	var i := 0
	var line_no := 0
	while not f.eof_reached():
		var line := f.get_line().strip_edges().to_lower()
		line_no += 1
		if line == "":
			continue
		var b := line.hex_decode()
		var v = bytes_to_var_with_objects(b) if objects else bytes_to_var(b)
		var ok := typeof(v) != TYPE_NIL or (b.size() >= 4 and b[0] == 0)
		var res := {"i": i, "line": line_no, "ok": ok, "type": -1, "text": "", "hex": ""}
		if ok:
			res["type"] = typeof(v)
			res["text"] = var_to_str(v).to_utf8_buffer().hex_encode()
			var back := var_to_bytes_with_objects(v) if objects else var_to_bytes(v)
			res["hex"] = back.hex_encode()
			# The engine reading its own text back (str_to_var).
			var again = str_to_var(var_to_str(v))
			res["parsed"] = (var_to_bytes_with_objects(again) if objects else var_to_bytes(again)).hex_encode()
		var json := JSON.stringify(res)
		print(json)
		if out != null:
			out.store_line(json)
		i += 1
	quit()
