# Godot 4 reverse oracle: for each hex line of $ORACLE_IN, bytes_to_var the bytes and
# print one JSON line: {"i", "ok", "text": var_to_str(value), "hex": var_to_bytes(value)}.
# bytes_to_var reports failure as an error message and null.
extends SceneTree

func _init():
	var f = FileAccess.open(OS.get_environment("ORACLE_IN"), FileAccess.READ)
	var i = 0
	while not f.eof_reached():
		var line = f.get_line().strip_edges()
		if line == "":
			continue
		var v = bytes_to_var(line.hex_decode())
		var ok = v != null or line == "00000000"
		print(JSON.stringify({"i": i, "ok": ok, "text": var_to_str(v), "hex": var_to_bytes(v).hex_encode()}))
		i += 1
	quit()
