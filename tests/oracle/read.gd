# Godot 3 reverse oracle: for each hex line of $ORACLE_IN, bytes2var the bytes and print
# one JSON line: {"i": index, "ok": decoded, "text": var2str(value), "hex": var2bytes(value)}.
# bytes2var reports failure only as an error message and null, so "ok" is false when
# the result is null but the input was not the null value itself.
extends SceneTree

func unhex(s: String) -> PoolByteArray:
	var out = PoolByteArray()
	for i in range(0, s.length(), 2):
		out.append(("0x" + s.substr(i, 2)).hex_to_int())
	return out

func hexs(b: PoolByteArray) -> String:
	var s = ""
	for x in b:
		s += "%02x" % x
	return s

func _init():
	var f = File.new()
	f.open(OS.get_environment("ORACLE_IN"), File.READ)
	var i = 0
	while not f.eof_reached():
		var line = f.get_line().strip_edges()
		if line == "":
			continue
		var v = bytes2var(unhex(line))
		var ok = v != null or line == "00000000"
		print(to_json({"i": i, "ok": ok, "text": var2str(v), "hex": hexs(var2bytes(v))}))
		i += 1
	f.close()
	quit()
