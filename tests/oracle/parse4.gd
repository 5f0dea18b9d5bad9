# Text oracle for Godot 4: the engine parses Variant text (str_to_var).
#
#   ORACLE_IN=in.hex godot4 --headless --no-header --path tests/oracle/g4 -s ../parse4.gd
#
# ORACLE_IN names a file with ONE INPUT PER LINE, each the lowercase hex of the input's
# UTF-8 bytes (so inputs may hold newlines, quotes, anything); an empty line is the empty
# input. A relative path is taken from $PWD. For each input, in order, one JSON line goes
# to stdout (and to the file $ORACLE_OUT, if set), keys sorted (JSON.stringify's default,
# the same layout as parse.gd's for Godot 3):
#   {"hex":"0200000001000000","i":0,"in":"31","ok":true,"parse_ok":true,"text":"31","type":2}
#   i         0-based input index (line number - 1)
#   in        the input, as given (hex of its UTF-8)
#   ok        str_to_var produced a value: false when it refused the input (see below)
#   parse_ok  VariantParser::parse itself reported success (see below)
#   type      typeof(result), -1 when refused
#   hex       var_to_bytes_with_objects(result) (full objects, so Object(...) results
#             are reproducible; identical to var_to_bytes(result) for non-object values)
#   text      UTF-8 hex of var_to_str(result)
#   seen      only when the String the engine parsed is not the input: hex of its UTF-8
#             (Godot's UTF-8 decoder drops a leading BOM and stops at U+0000; a leading
#             BOM is put back, so in practice this marks inputs holding U+0000)
#   note      only when a field could not be taken (it is then "" or absent):
#             var_to_bytes refused the value (it returned no bytes), or the driver
#             skipped a step that crashed the engine (ORACLE_SKIP_*)
# (Text goes as hex: the engines' JSON escapes of control characters are not JSON.)
# A refused input has "ok":false,"type":-1,"hex":"","text":"".
# Only lines starting with "{" are results. Lines "@<step> <i>" mark progress (steps
# parse, check, text, hex, free) so a driver can tell where an engine crashed.
# ORACLE_START=n skips the first n inputs; ORACLE_SKIP_CHECK, ORACLE_SKIP_TEXT and
# ORACLE_SKIP_HEX are comma lists of input indexes whose step is not run (a crash).
#
# ok (exact): Godot 4's str_to_var starts from null, ignores the parser's error and
# prints nothing. The parser yields null on success only for the identifiers `null` and
# `nil` as the first token (it stops reading right after them). So a null result is a
# refusal unless the first token of the input is the identifier null or nil.
# first_token_is_null() finds that token the way VariantParser::get_token does: it skips
# characters <= 32 (but U+0000 is end of input) and ';' comments to the end of the line,
# then reads [A-Za-z_][A-Za-z_0-9]* (a leading '-' would make it another identifier,
# "-null", which is not null).
# parse_ok (exact): a few branches assign the value before they fail (NodePath("a"
# without ")", RID(5, 6)), so ok can be true when the parser reported an error.
# parse_ok runs the same parser through ConfigFile.parse("k=" + input), which returns
# parse_value's error; after a successful value ConfigFile stores key "k" before it
# reads on, so an error from text after the value still leaves has_section_key("", "k")
# true. parse_ok = that error is OK, or key "k" exists, or the input is null/nil
# (set_value(null) erases instead of storing). parse_ok implies ok.
extends SceneTree

func first_token_is_null(s: String) -> bool:
	var k := 0
	var n := s.length()
	while k < n:
		var c := s.unicode_at(k)
		if c == 0:
			return false
		if c == 59: # ';'
			while k < n and s.unicode_at(k) != 10:
				k += 1
			continue
		if c <= 32:
			k += 1
			continue
		break
	var id := ""
	while k < n:
		var c := s.unicode_at(k)
		var alpha := (c >= 65 and c <= 90) or (c >= 97 and c <= 122) or c == 95
		var digit := c >= 48 and c <= 57
		if alpha or (digit and id != ""):
			id += char(c)
			k += 1
		else:
			break
	return id == "null" or id == "nil"

func index_set(name: String) -> Dictionary:
	var out := {}
	for part in OS.get_environment(name).split(",", false):
		out[int(part)] = true
	return out

# The input as a String; UTF-8 decoding drops a leading BOM, so put it back.
func decode(b: PackedByteArray) -> String:
	var prefix := ""
	while b.size() >= 3 and b[0] == 0xEF and b[1] == 0xBB and b[2] == 0xBF:
		prefix += String.chr(0xFEFF)
		b = b.slice(3)
	return prefix + b.get_string_from_utf8()

func parser_accepts(s: String) -> bool:
	var cfg := ConfigFile.new()
	return cfg.parse("k=" + s) == OK or cfg.has_section_key("", "k")

func _init():
	var path := OS.get_environment("ORACLE_IN")
	if path != "" and not path.is_absolute_path() and OS.get_environment("PWD") != "":
		path = OS.get_environment("PWD").path_join(path)
	var f := FileAccess.open(path, FileAccess.READ) if path != "" else null
	if f == null:
		printerr("parse4.gd: set ORACLE_IN to a readable file of hex lines (got '", path, "')")
		quit(2)
		return
	var out: FileAccess = null
	var out_path := OS.get_environment("ORACLE_OUT")
	if out_path != "":
		out = FileAccess.open(out_path, FileAccess.WRITE)
		if out == null:
			printerr("parse4.gd: cannot write ORACLE_OUT '", out_path, "'")
			quit(2)
			return
	var start := int(OS.get_environment("ORACLE_START")) if OS.get_environment("ORACLE_START") != "" else 0
	var skip_check := index_set("ORACLE_SKIP_CHECK")
	var skip_text := index_set("ORACLE_SKIP_TEXT")
	var skip_hex := index_set("ORACLE_SKIP_HEX")
	var lines := f.get_as_text().split("\n")
	f.close()
	# A final newline ends the last line; it does not start another input.
	if lines.size() > 0 and lines[lines.size() - 1] == "":
		lines.remove_at(lines.size() - 1)
	for i in range(start, lines.size()):
		var h: String = lines[i].strip_edges().to_lower()
		var s := decode(h.hex_decode())
		print("@parse ", i)
		var v = str_to_var(s)
		var null_input := first_token_is_null(s)
		var ok := typeof(v) != TYPE_NIL or null_input
		var res := {"i": i, "in": h, "ok": ok, "type": -1, "text": "", "hex": ""}
		if s.to_utf8_buffer().hex_encode() != h:
			res["seen"] = s.to_utf8_buffer().hex_encode()
		var notes := PackedStringArray()
		if skip_check.has(i):
			notes.append("parse_ok not taken: the check crashed the engine")
		else:
			print("@check ", i)
			res["parse_ok"] = null_input or parser_accepts(s)
		if ok:
			res["type"] = typeof(v)
			if skip_text.has(i):
				notes.append("text not taken: var_to_str crashed the engine")
			else:
				print("@text ", i)
				res["text"] = var_to_str(v).to_utf8_buffer().hex_encode()
			if skip_hex.has(i):
				notes.append("hex not taken: var_to_bytes crashed the engine")
			else:
				print("@hex ", i)
				res["hex"] = var_to_bytes_with_objects(v).hex_encode()
				if res["hex"] == "":
					notes.append("hex not taken: var_to_bytes refused the value (no bytes)")
		if notes.size() > 0:
			res["note"] = "; ".join(notes)
		var json := JSON.stringify(res)
		print(json)
		if out != null:
			out.store_line(json)
		print("@free ", i)
		v = null
	quit()
