# Encrypted files in Godot 3 (tests/encrypted.rs): File.open_encrypted_with_pass and
# File.open_encrypted.
#
#   godot3.x --path DIR -s encrypted3.gd
#
# Environment: ENC_OP (write | read), ENC_FILE (a path), and either ENC_PASS (a
# password) or ENC_KEY (32 ASCII characters, taken as the key bytes).
#   write  store_var()s the first ENC_COUNT (default: all) of values() into ENC_FILE,
#          encrypted
#   read   opens ENC_FILE and get_var()s until the end of the plaintext
# One JSON line per value on stdout: {"hex": var2bytes hex, "text": UTF-8 hex of
# var2str}; then {"err": the open error code, "count": the values}.
extends SceneTree

func values():
	return [
		{"pos": Vector3(1.5, -2, 3.25), "name": "Zoë", "hp": 42, "tags": PoolStringArray(["a", "bé"])},
		"héllo wörld ✓",
		1234567890123,
		PoolStringArray(["x", "", "yz"]),
		0.1,
		[true, null, Color(1, 0, 0.5, 1), Vector2(-1, 2)],
		PoolByteArray([0, 1, 2, 255]),
	]

func emit(v):
	print(to_json({"hex": var2bytes(v).hex_encode(), "text": var2str(v).to_utf8().hex_encode()}))

func open(f, path, mode):
	var key = OS.get_environment("ENC_KEY")
	if key != "":
		return f.open_encrypted(path, mode, key.to_ascii())
	# Godot 3 reads the environment as Latin-1: back to the UTF-8 the test sent.
	var password = OS.get_environment("ENC_PASS").to_ascii().get_string_from_utf8()
	return f.open_encrypted_with_pass(path, mode, password)

func _init():
	var path = OS.get_environment("ENC_FILE")
	var f = File.new()
	var n = 0
	var err
	if OS.get_environment("ENC_OP") == "write":
		err = open(f, path, File.WRITE)
		if err == OK:
			var count = values().size()
			if OS.get_environment("ENC_COUNT") != "":
				count = int(OS.get_environment("ENC_COUNT"))
			for v in values():
				if n == count:
					break
				f.store_var(v)
				emit(v)
				n += 1
			f.close()
	else:
		err = open(f, path, File.READ)
		if err == OK:
			while f.get_position() < f.get_len():
				emit(f.get_var())
				n += 1
			f.close()
	print(to_json({"err": err, "count": n}))
	quit()
