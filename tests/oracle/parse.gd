# Text oracle for Godot 3 (3.2.3 and 3.6): the engine parses Variant text (str2var).
#
#   ORACLE_IN=in.hex godot3.6 --path tests/oracle -s parse.gd
#
# ORACLE_IN names a file with ONE INPUT PER LINE, each the lowercase hex of the input's
# UTF-8 bytes (so inputs may hold newlines, quotes, anything); an empty line is the empty
# input. A relative path is taken from $PWD. For each input, in order, one JSON line goes
# to stdout (and to the file $ORACLE_OUT, if set), keys sorted (Godot's to_json):
#   {"hex":"0200000001000000","i":0,"in":"31","ok":true,"parse_ok":true,"text":"31","type":2}
#   i         0-based input index (line number - 1)
#   in        the input, as given (hex of its UTF-8)
#   ok        str2var produced a value: false when it refused the input (see below)
#   parse_ok  VariantParser::parse itself reported success (see below)
#   type      typeof(result), -1 when refused
#   hex       var2bytes(result, true) (full objects, so Object(...) results are
#             reproducible; identical to var2bytes(result) for every non-object value)
#   text      UTF-8 hex of var2str(result)
#   seen      only when the String the engine parsed is not the input: hex of its UTF-8
#             (Godot's UTF-8 decoder drops a leading BOM and stops at U+0000; a leading
#             BOM is put back, so in practice this marks inputs holding U+0000)
#   note      only when a field could not be taken (it is then "" or absent): var2bytes
#             refused the value (a script error, e.g. nesting too deep), or the driver
#             skipped a step that crashed the engine (ORACLE_SKIP_*)
# (Text goes as hex: the engines' JSON escapes of control characters are not JSON.)
# A refused input has "ok":false,"type":-1,"hex":"","text":"".
# Only lines starting with "{" are results. Lines "@<step> <i>" mark progress (steps
# parse, check, text, hex, free) so a driver can tell where an engine crashed.
# ORACLE_START=n skips the first n inputs; ORACLE_SKIP_CHECK, ORACLE_SKIP_TEXT and
# ORACLE_SKIP_HEX are comma lists of input indexes whose step is not run (a crash).
#
# ok (exact): Godot 3's str2var sets its return value to the input String, lets
# VariantParser::parse overwrite it and ignores parse's error. So str2var(s) returned s
# itself (a String equal to the input) exactly when the parser assigned nothing. A
# parse can never yield a String equal to its input: the only String result is a "..."
# token, strictly shorter than the text holding it. The empty input is refused too
# (parse returns ERR_FILE_EOF).
# parse_ok (exact): a few branches assign the value before they fail (NodePath("a"
# without ")", RID(5, 6)), so ok can be true when the parser reported an error.
# parse_ok runs the same parser through ConfigFile.parse("k=" + input), which returns
# parse_value's error; after a successful value ConfigFile stores key "k" before it
# reads on, so an error from text after the value still leaves has_section_key("", "k")
# true. parse_ok = that error is OK, or key "k" exists, or the result is null and ok
# (null/nil: set_value(null) erases instead of storing). parse_ok implies ok.
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

func index_set(name: String) -> Dictionary:
	var out := {}
	for part in OS.get_environment(name).split(",", false):
		out[int(part)] = true
	return out

# The input as a String; UTF-8 decoding drops a leading BOM, so put it back.
func decode(b: PoolByteArray) -> String:
	var prefix := ""
	while b.size() >= 3 and b[0] == 0xEF and b[1] == 0xBB and b[2] == 0xBF:
		prefix += char(0xFEFF)
		b = b.subarray(3, b.size() - 1) if b.size() > 3 else PoolByteArray()
	return prefix + b.get_string_from_utf8()

func parser_accepts(s: String) -> bool:
	var cfg := ConfigFile.new()
	return cfg.parse("k=" + s) == OK or cfg.has_section_key("", "k")

# [hex], or null when var2bytes raised a script error (which aborts this function).
func encode(v):
	return [hexs(var2bytes(v, true))]

func _init():
	var path := OS.get_environment("ORACLE_IN")
	if path != "" and not path.is_abs_path() and OS.get_environment("PWD") != "":
		path = OS.get_environment("PWD").plus_file(path)
	var f := File.new()
	if path == "" or f.open(path, File.READ) != OK:
		printerr("parse.gd: set ORACLE_IN to a readable file of hex lines (got '", path, "')")
		quit(2)
		return
	var out := File.new()
	var out_path := OS.get_environment("ORACLE_OUT")
	if out_path != "" and out.open(out_path, File.WRITE) != OK:
		printerr("parse.gd: cannot write ORACLE_OUT '", out_path, "'")
		quit(2)
		return
	var start := int(OS.get_environment("ORACLE_START")) if OS.get_environment("ORACLE_START") != "" else 0
	var skip_check := index_set("ORACLE_SKIP_CHECK")
	var skip_text := index_set("ORACLE_SKIP_TEXT")
	var skip_hex := index_set("ORACLE_SKIP_HEX")
	var text := f.get_as_text()
	f.close()
	var lines := text.split("\n")
	# A final newline ends the last line; it does not start another input.
	if lines.size() > 0 and lines[lines.size() - 1] == "":
		lines.remove(lines.size() - 1)
	for i in range(start, lines.size()):
		var h: String = lines[i].strip_edges().to_lower()
		var b := unhex(h)
		var s := decode(b)
		print("@parse ", i)
		var v = str2var(s)
		var ok: bool = not (typeof(v) == TYPE_STRING and v == s)
		var res := {"i": i, "in": h, "ok": ok, "type": -1, "text": "", "hex": ""}
		if hexs(s.to_utf8()) != h:
			res["seen"] = hexs(s.to_utf8())
		var notes := PoolStringArray()
		if skip_check.has(i):
			notes.append("parse_ok not taken: the check crashed the engine")
		else:
			print("@check ", i)
			res["parse_ok"] = parser_accepts(s) or (ok and typeof(v) == TYPE_NIL)
		if ok:
			res["type"] = typeof(v)
			if skip_text.has(i):
				notes.append("text not taken: var2str crashed the engine")
			else:
				print("@text ", i)
				res["text"] = hexs(var2str(v).to_utf8())
			if skip_hex.has(i):
				notes.append("hex not taken: var2bytes crashed the engine")
			else:
				print("@hex ", i)
				var enc = encode(v)
				if enc == null:
					notes.append("hex not taken: var2bytes refused the value (script error)")
				else:
					res["hex"] = enc[0]
		if notes.size() > 0:
			res["note"] = notes.join("; ")
		var json := to_json(res)
		print(json)
		if out.is_open():
			out.store_line(json)
		print("@free ", i)
		v = null
	if out.is_open():
		out.close()
	quit()
